"""REST API of the annotation app (DRF). Same rules as the pages: role checks on every endpoint,
annotators reach only their own folds and never see system names."""

import re

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import annotating, fold_kinds, formats, judgements, studies
from annotation.counted import counted_labels
from annotation.jobs import start_import
from annotation.label_files import MATCH_MODES
from annotation.models import Corpus, Fold, Label, System
from core import ids
from core.permissions import IsAdminRole, IsAnnotatorRole, IsResearcherRole
from core.serializers import JobSerializer
from core.uploads import max_upload_size, save_upload
from stats.labels import LABEL_VALUES


class SubmissionConflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "submission_conflict"


class CorpusSerializer(serializers.ModelSerializer):
    n_questions = serializers.IntegerField(source="questions.count", read_only=True)

    class Meta:
        model = Corpus
        fields = ["id", "name", "description", "dedup_policy", "n_questions", "created_at"]


class SystemSerializer(serializers.ModelSerializer):
    n_predictions = serializers.IntegerField(source="predictions.count", read_only=True)

    class Meta:
        model = System
        fields = ["id", "name", "kind", "description", "n_predictions"]


class LabelSerializer(serializers.ModelSerializer):
    question_id = serializers.CharField(source="triplet.question.external_id")
    answer = serializers.CharField(source="triplet.answer")
    annotator = serializers.CharField(source="annotator.username")
    label = serializers.CharField(source="value")

    class Meta:
        model = Label
        fields = ["question_id", "answer", "annotator", "label", "triplet_id", "seconds_spent", "updated_at"]


class CorpusList(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = CorpusSerializer
    queryset = Corpus.objects.order_by("name")


class CorpusDetail(generics.RetrieveAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = CorpusSerializer
    queryset = Corpus.objects.all()


class SystemList(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = SystemSerializer
    queryset = System.objects.order_by("name")


class LabelList(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = LabelSerializer

    def get_queryset(self):
        qs = counted_labels(None, include_excluded=self.request.query_params.get("excluded") == "1")
        qs = qs.select_related("triplet__question", "annotator").order_by("id")
        if self.request.query_params.get("corpus"):
            qs = qs.filter(triplet__question__corpus__name=self.request.query_params["corpus"])
        return qs


class ImportRequest(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["corpus", "predictions", "labels"])
    corpus = serializers.SlugField(max_length=100)
    file = serializers.FileField(validators=[max_upload_size])
    format = serializers.ChoiceField(choices=formats.names(), required=False)
    # labels only (SPEC 9): see ``annotation.importers.import_labels``
    match = serializers.ChoiceField(choices=MATCH_MODES, default="dedup")
    dry_run = serializers.BooleanField(default=False, help_text="check every line, change nothing")
    rejects = serializers.BooleanField(
        default=False, help_text="import the valid lines; rejected ones go to the job's result"
    )
    attach_existing = serializers.BooleanField(default=False)
    annotator_prefix = serializers.CharField(default="", allow_blank=True, max_length=50)

    def validate(self, data):
        if data["kind"] != "corpus" and not Corpus.objects.filter(name=data["corpus"]).exists():
            raise serializers.ValidationError({"corpus": f"no corpus named {data['corpus']!r}"})
        return data


class ImportStart(APIView):
    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(request={"multipart/form-data": ImportRequest}, responses={202: JobSerializer})
    def post(self, request):
        form = ImportRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        path = save_upload(data["file"])
        job = start_import(
            data["kind"],
            data["corpus"],
            path,
            fmt=data.get("format"),
            user=request.user,
            original_name=data["file"].name,
            options=data,
        )
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)


class Quality(APIView):
    """Per-annotator quality of one corpus (``?corpus=name``): accuracy on gold, agreement with the
    others on overlap items, median seconds per item, last activity. Admins only."""

    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses=None)
    def get(self, request):
        from annotation import quality_data

        name = request.query_params.get("corpus", "")
        valid = bool(re.fullmatch(r"[A-Za-z0-9_-]{1,100}", name))  # a slug: no NUL byte reaches the database
        corpus = Corpus.objects.filter(name=name).first() if valid else None
        if corpus is None:
            raise NotFound(f"no corpus named {name[:100]!r}")
        return Response(
            {
                "corpus": corpus.name,
                "annotators": [q.as_dict() for q in quality_data.corpus_quality(corpus)],
                "open_disagreements": len(quality_data.open_disagreements(corpus)),
            }
        )


# --- annotator endpoints ----------------------------------------------------------------------


class ItemSerializer(serializers.Serializer):
    """What an annotator may see of an item: never the systems, never how many gave the answer."""

    item_id = serializers.IntegerField(source="handle", help_text="the item's handle: it carries no order")
    position = serializers.IntegerField()
    question = serializers.CharField(source="triplet.question.question")
    context = serializers.CharField(source="triplet.question.context")
    answer = serializers.CharField(source="triplet.answer")
    language = serializers.CharField(source="triplet.question.language")


class FoldSerializer(serializers.ModelSerializer):
    class Meta:
        model = Fold
        fields = ["id", "name", "kind", "index"]


class JudgementRequest(serializers.Serializer):
    item = serializers.IntegerField(**ids.ID_FIELD)
    label = serializers.ChoiceField(choices=list(LABEL_VALUES), required=False)
    skip = serializers.BooleanField(required=False, default=False)
    seconds = serializers.FloatField(required=False, default=0.0, min_value=0)
    submission_id = serializers.CharField(required=False, max_length=64, allow_blank=True)

    def validate(self, data):
        if not data.get("skip") and not data.get("label"):
            raise serializers.ValidationError({"label": "give a label or skip=true"})
        return data


def _progress(fold, user):
    p = fold_kinds.progress_of(fold, user)
    return {"done": p.done, "skipped": p.skipped, "total": p.total}


def _fold_for(request, pk):
    """The fold, or ``annotating.NotFound``, which ``core.web_errors`` answers with 404."""
    return annotating.get_assigned_fold(request.user, pk)


class MyFolds(APIView):
    permission_classes = [IsAuthenticated, IsAnnotatorRole]

    """The user's folds that the API labels (answer triplets), each with its ``next`` endpoint.

    Frame-check folds are labelled on their page only: listing them here would offer a ``/next/``
    that answers "no such fold"."""

    @extend_schema(responses=FoldSerializer(many=True))
    def get(self, request):
        folds = annotating.assigned_folds(request.user, kind=Fold.KIND_TRIPLET)
        return Response(
            [
                {
                    **FoldSerializer(f).data,
                    "progress": _progress(f, request.user),
                    "next": request.build_absolute_uri(reverse("api-next-item", args=[f.pk])),
                }
                for f in folds
            ]
        )


class NextItem(APIView):
    permission_classes = [IsAuthenticated, IsAnnotatorRole]

    @extend_schema(responses=ItemSerializer)
    def get(self, request, pk):
        fold = _fold_for(request, pk)
        item = annotating.next_item(fold, request.user)
        return Response(
            {"item": ItemSerializer(item).data if item else None, "progress": _progress(fold, request.user)}
        )


class ItemDetail(APIView):
    permission_classes = [IsAuthenticated, IsAnnotatorRole]

    @extend_schema(responses=ItemSerializer)
    def get(self, request, pk, handle):
        fold = _fold_for(request, pk)
        item = annotating.item_by_handle(fold, handle)
        label = annotating.current_label(item, request.user)
        return Response({**ItemSerializer(item).data, "label": label.value if label else None})


class Judge(APIView):
    permission_classes = [IsAuthenticated, IsAnnotatorRole]

    @extend_schema(request=JudgementRequest, responses=ItemSerializer)
    def post(self, request, pk):
        fold = _fold_for(request, pk)
        form = JudgementRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        item = annotating.item_by_handle(fold, data["item"])
        try:
            participant = studies.judging_participant(request.user, request.session.get(studies.SESSION_KEY))
        except studies.WorkEnded as ended:
            raise PermissionDenied(str(ended)) from None
        try:
            label, changed = annotating.save_judgement(
                request.user,
                fold,
                item,
                value=data.get("label"),
                skip=data["skip"],
                seconds=data["seconds"],
                submission_id=data.get("submission_id"),
                source="api",
            )
        except judgements.SubmissionConflict as conflict:
            raise SubmissionConflict(str(conflict)) from None
        progress = _progress(fold, request.user)
        status = participant and studies.after_judgement(
            participant, item, done=progress["done"], total=progress["total"]
        )
        nxt = annotating.next_item(fold, request.user) if not status else None
        return Response(
            {
                "saved": {"item": item.handle, "label": label.value, "skipped": label.skipped, "changed": changed},
                "next": ItemSerializer(nxt).data if nxt else None,
                "progress": progress,
                **({"study_status": status} if status else {}),
            }
        )
