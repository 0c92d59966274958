"""REST API of inference runs. Admins start and cancel runs; researchers read them; annotators get
403 on every endpoint and method (the permission is checked before the method)."""

import sys

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Corpus
from core import roles
from core.models import ADMIN_ONLY_PARAMS, admin_only_values, without_llm_settings
from core.runner import request_cancel
from models_runner import inference, jobs
from models_runner.backends import REGISTRY, backend_class
from models_runner.models import InferenceRun


class RunPermission(BasePermission):
    """Read: researchers (and admins), never plain annotators. Write: admins only."""

    def has_permission(self, request, view):
        if request.method in SAFE_METHODS:
            return roles.is_researcher(request.user)
        return roles.is_admin(request.user)


class RunSerializer(serializers.ModelSerializer):
    job = serializers.IntegerField(source="job_id", read_only=True)
    system = serializers.CharField(source="system.name")
    corpus = serializers.CharField(source="corpus.name")
    status = serializers.CharField(source="job.status")
    progress_done = serializers.IntegerField(source="job.progress_done")
    progress_total = serializers.IntegerField(source="job.progress_total")
    percent = serializers.IntegerField(source="job.percent")
    message = serializers.CharField(source="job.message")
    error = serializers.CharField(source="job.error")
    started_at = serializers.DateTimeField(source="job.started_at")
    finished_at = serializers.DateTimeField(source="job.finished_at")

    class Meta:
        model = InferenceRun
        fields = [
            "id",
            "job",
            "system",
            "corpus",
            "backend",
            "status",
            "progress_done",
            "progress_total",
            "percent",
            "message",
            "error",
            *InferenceRun.RECORD_FIELDS,
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def to_representation(self, run):
        """Admins read the run as stored; researchers without the LLM server's address, endpoint and
        key variable (in ``parameters``, ``model_path`` and ``error``: ``core.models.without_llm_settings``)."""
        data = super().to_representation(run)
        request = self.context.get("request")
        if request is not None and roles.is_admin(request.user):
            return data
        hidden = admin_only_values(run.parameters)
        data["parameters"] = {k: v for k, v in (run.parameters or {}).items() if k not in ADMIN_ONLY_PARAMS}
        data["model_path"] = without_llm_settings(run.model_path or "", hidden)
        data["error"] = without_llm_settings(run.job.public_error, hidden)
        return data


class StartRunRequest(serializers.Serializer):
    corpus = serializers.SlugField(max_length=100)
    system = serializers.CharField(max_length=200)
    backend = serializers.ChoiceField(choices=list(REGISTRY))
    options = serializers.DictField(required=False, default=dict, help_text="backend options (model, adapter, ...)")
    batch_size = serializers.IntegerField(min_value=1, max_value=4096, default=8)
    device = serializers.CharField(max_length=20, default="auto")

    def validate_corpus(self, value):
        corpus = Corpus.objects.filter(name=value).first()
        if corpus is None:
            raise serializers.ValidationError(f"no corpus named {value!r}")
        return corpus


def _runs():
    return InferenceRun.objects.select_related("job", "system", "corpus")


class RunList(APIView):
    permission_classes = [IsAuthenticated, RunPermission]

    @extend_schema(responses=RunSerializer(many=True))
    def get(self, request):
        qs = _runs()
        if request.query_params.get("corpus"):
            qs = qs.filter(corpus__name=request.query_params["corpus"])
        return Response(RunSerializer(qs[:500], many=True, context={"request": request}).data)

    @extend_schema(request=StartRunRequest, responses={202: RunSerializer})
    def post(self, request):
        form = StartRunRequest(data=request.data)
        form.is_valid(raise_exception=True)
        d = form.validated_data
        try:
            run = jobs.start_run(
                d["corpus"],
                d["system"],
                d["backend"],
                options=d["options"],
                batch_size=d["batch_size"],
                device=d["device"],
                user=request.user,
            )
        except inference.RunError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            RunSerializer(_runs().get(pk=run.pk), context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )


class RunDetail(APIView):
    permission_classes = [IsAuthenticated, RunPermission]

    @extend_schema(responses=RunSerializer)
    def get(self, request, pk):
        return Response(RunSerializer(get_object_or_404(_runs(), pk=pk), context={"request": request}).data)


class RunCancel(APIView):
    permission_classes = [IsAuthenticated, RunPermission]

    @extend_schema(request=None, responses=RunSerializer)
    def post(self, request, pk):
        run = get_object_or_404(_runs(), pk=pk)
        request_cancel(run.job)
        return Response(RunSerializer(_runs().get(pk=pk), context={"request": request}).data)


class BackendList(APIView):
    permission_classes = [IsAuthenticated, RunPermission]

    @extend_schema(responses=None)
    def get(self, request):
        out = []
        for name in REGISTRY:
            cls = backend_class(name)
            defaults = {**cls.common, **getattr(cls, "hf_defaults", {}), **cls.defaults}
            out.append({"name": name, "options": defaults, "doc": (sys.modules[cls.__module__].__doc__ or "").strip()})
        return Response(out)
