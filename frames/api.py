"""REST API of the attribute derivation (SPEC 15): list the derivation jobs, start one. Admins only
(a derivation writes the corpus's attributes, as an import does). Progress and cancel are the Job
API's (``/api/jobs/<id>/``, ``/api/jobs/<id>/cancel/``)."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from annotation.models import Corpus
from core.models import Job
from core.permissions import IsAdminRole
from core.serializers import JobSerializer
from frames.attribute_jobs import JOB_KIND, start_attribute_job
from frames.lexicon_store import SHIPPED
from frames.models import FrameLexicon

# a sample of the adaptation corpus: at least one question, at most what a positive integer column holds
MAX_SAMPLE = 2**31 - 1


def _corpus(value):
    if not Corpus.objects.filter(name=value).exists():
        raise serializers.ValidationError(f"no corpus named {value!r}")
    return value


class DeriveRequest(serializers.Serializer):
    corpus = serializers.SlugField(max_length=100, validators=[_corpus])
    parser = serializers.RegexField(
        r"^[A-Za-z0-9_.-]+$",
        max_length=100,
        required=False,
        allow_null=True,
        default=None,
        help_text="spaCy pipeline name; default by the corpus language (fr: fr_core_news_sm)",
    )
    lexicon = serializers.SlugField(
        max_length=100,
        required=False,
        allow_null=True,
        default=None,
        help_text="default: the lexicon the corpus's frames were predicted with, else the shipped one of its language",
    )
    adaptation = serializers.SlugField(
        max_length=100, required=False, allow_null=True, default=None, validators=[_corpus]
    )
    sample = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=MAX_SAMPLE)
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=MAX_SAMPLE)
    overwrite = serializers.BooleanField(required=False, default=False)

    def validate_lexicon(self, value):
        if value is not None and value not in SHIPPED and not FrameLexicon.objects.filter(name=value).exists():
            raise serializers.ValidationError(f"no frame lexicon named {value!r}")
        return value

    def validate(self, data):
        if data.get("sample") is not None and not data.get("adaptation"):
            raise serializers.ValidationError({"sample": "a sample needs an adaptation corpus"})
        return data


class AttributeJobs(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsAdminRole]
    serializer_class = JobSerializer

    def get_queryset(self):
        return Job.objects.filter(kind=JOB_KIND).order_by("-created_at", "-id")

    @extend_schema(request=DeriveRequest, responses={202: JobSerializer})
    def post(self, request):
        form = DeriveRequest(data=request.data)
        form.is_valid(raise_exception=True)
        d = dict(form.validated_data)
        job = start_attribute_job(d.pop("corpus"), user=request.user, **d)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
