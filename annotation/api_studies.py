"""REST API of crowd studies (SPEC 13), admins only: create and list studies, read participants."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import privacy, screening, studies
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
            "qualification_items",
            "screenout_code",
            "completion_code",
            "completion_url",
            "open",
            "close_when",
            "close_width",
            "tie_margin",
            "closed_at",
            "closed_reason",
            "language",
            "withdraw_mode",
            "returned_mode",
            "identifiers_days_after_close",
            "data_until",
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
        try:  # SPEC 17: the qualification block needs that many gold items
            if corpus is not None:
                screening.check_qualification(corpus, attrs.get("qualification_items") or 0)
        except ValueError as exc:
            raise serializers.ValidationError({"qualification_items": str(exc)}) from None
        return attrs

    def save(self, **kwargs):
        study = super().save(**kwargs)
        screening.place_qualification(study)  # SPEC 17: the block first in every fold
        return study


class ParticipantSerializer(serializers.Serializer):
    participant = serializers.CharField()
    code = serializers.CharField()
    consent_version = serializers.IntegerField(allow_null=True)
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
    # SPEC 17: the three decisions and the per-participant figures
    excluded = serializers.CharField()
    excluded_reason = serializers.CharField()
    stopped = serializers.CharField()
    stopped_reason = serializers.CharField()
    panel_decision = serializers.CharField()
    panel_reason = serializers.CharField()
    decision_rules = serializers.CharField()
    decision_evidence = serializers.CharField()
    gold_accuracy_low = serializers.FloatField(allow_null=True)
    gold_accuracy_high = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)
    share_correct = serializers.FloatField(allow_null=True)
    share_partial = serializers.FloatField(allow_null=True)
    share_incorrect = serializers.FloatField(allow_null=True)
    crowd_share_correct = serializers.FloatField(allow_null=True)
    crowd_share_partial = serializers.FloatField(allow_null=True)
    crowd_share_incorrect = serializers.FloatField(allow_null=True)
    agreement = serializers.FloatField(allow_null=True)
    agreement_items = serializers.IntegerField(allow_null=True)
    ds_accuracy = serializers.FloatField(allow_null=True)
    spammer_score = serializers.FloatField(allow_null=True)
    flag = serializers.BooleanField(allow_null=True)


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


class EraseSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=list(privacy.MODES))
    reason = serializers.CharField(max_length=300)


class ParticipantErase(APIView):
    """``POST {"mode": "withdraw"|"identity", "reason": "..."}``: erase one participant (named by its
    pseudonym: a panel id never goes into a URL) through the one erasure service (SPEC 18); answers the
    tombstone."""

    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(request=EraseSerializer, responses=None)
    def post(self, request, slug, code):
        study = Study.objects.filter(slug=slug).first()
        participant = study and privacy.find_participant(study, code, code_only=True)
        if participant is None:
            raise NotFound("no such participant in this study")
        data = EraseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        stone = privacy.erase(participant, data.validated_data["mode"], data.validated_data["reason"])
        fields = ("code", "mode", "reason", "counts")
        return Response({**{k: getattr(stone, k) for k in fields}, "erased_at": stone.created_at}, status=200)
