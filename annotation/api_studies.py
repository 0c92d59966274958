"""REST API of crowd studies (SPEC 13), admins only: create and list studies, read participants."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import studies
from annotation.models import Corpus, Fold, Study
from core.permissions import IsAdminRole


class StudySerializer(serializers.ModelSerializer):
    corpus = serializers.SlugRelatedField(slug_field="name", queryset=Corpus.objects.all())
    folds = serializers.PrimaryKeyRelatedField(
        many=True, required=False, queryset=Fold.objects.filter(kind=Fold.KIND_TRIPLET)
    )
    link = serializers.SerializerMethodField()

    class Meta:
        model = Study
        fields = [
            "id",
            "slug",
            "title",
            "consent",
            "corpus",
            "folds",
            "slots_per_fold",
            "max_participants",
            "idle_minutes",
            "min_gold_accuracy",
            "completion_code",
            "completion_url",
            "open",
            "close_when",
            "close_width",
            "tie_margin",
            "closed_at",
            "closed_reason",
            "language",
            "link",
            "created_at",
        ]
        read_only_fields = ["id", "link", "created_at", "closed_at", "closed_reason"]

    def get_link(self, study) -> str:
        return f"/study/{study.slug}/"

    def validate(self, attrs):
        corpus = attrs.get("corpus")
        try:
            if corpus is not None:
                studies.check_folds(corpus, attrs.get("folds", []))
        except studies.StrayFolds as exc:
            raise serializers.ValidationError({"folds": str(exc)}) from None
        try:
            rule = attrs.get("close_when", getattr(self.instance, "close_when", ""))
            studies.check_close_rule(corpus or getattr(self.instance, "corpus", None), rule)
        except studies.CloseRuleRefused as exc:
            raise serializers.ValidationError({"close_when": str(exc)}) from None
        if (
            corpus is not None
            and not attrs.get("folds")
            and not Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).exists()
        ):
            raise serializers.ValidationError(
                {"corpus": f"the corpus {corpus.name} has no folds yet: build them first"}
            )
        return attrs


class ParticipantSerializer(serializers.Serializer):
    participant = serializers.CharField()
    status = serializers.CharField()
    fold = serializers.CharField()
    started = serializers.DateTimeField()
    ended = serializers.DateTimeField(allow_null=True)
    last_activity = serializers.DateTimeField(allow_null=True)
    active_minutes = serializers.FloatField()
    items_done = serializers.IntegerField()
    gold_items = serializers.IntegerField()
    gold_accuracy = serializers.FloatField(allow_null=True)
    panel_study = serializers.CharField()
    panel_session = serializers.CharField()


class StudyList(generics.ListCreateAPIView):
    """``GET``: every study; ``POST``: a new study with the settings of SPEC 13 (folds: default all
    the corpus's answer folds)."""

    permission_classes = [IsAuthenticated, IsAdminRole]
    serializer_class = StudySerializer
    queryset = Study.objects.select_related("corpus").prefetch_related("folds").order_by("-created_at")


class ParticipantList(APIView):
    """Every participant of a study with status, times, active minutes, items done, gold accuracy."""

    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses=ParticipantSerializer(many=True))
    def get(self, request, slug):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise NotFound("no such study")
        studies.release_idle(study)
        return Response(ParticipantSerializer(studies.participant_rows(study), many=True).data)
