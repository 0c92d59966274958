"""REST API of the reports (DRF): start a report job, its status, its report.json and its files.
Researchers and admins only; study archives (SPEC 14): admins only."""

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Corpus
from core.permissions import IsAdminRole, IsResearcherRole
from core.serializers import JobSerializer
from core.uploads import max_upload_size, save_upload
from evaluation import files, judge_inputs
from evaluation.archive.collect import archive_response
from evaluation.archive.format import NAME_RE
from evaluation.jobs import start_report_from, start_study_import
from evaluation.report.options import OPTIONS


def _api_field(option):
    """The API field of a report option (default, bounds and choices from the option)."""
    common = {"required": False, "help_text": option.help or None}
    if option.kind == "list":
        return serializers.ListField(child=serializers.CharField(max_length=200), default=list, **common)
    if option.kind == "float":
        return serializers.FloatField(default=option.default, min_value=option.min_value, **common)
    if option.kind == "int":
        return serializers.IntegerField(
            default=option.default,
            min_value=option.min_value,
            max_value=option.max_value,
            allow_null=option.default is None,
            **common,
        )
    if option.kind == "bool":
        return serializers.BooleanField(default=option.default, **common)
    if option.kind == "choice":
        return serializers.ChoiceField(choices=[v for v, _ in option.choices()], default=option.default, **common)
    return serializers.CharField(  # a name: absent or null, the default; "" none
        max_length=100, allow_blank=True, allow_null=True, default=option.default, **common
    )


class ReportRequest(serializers.Serializer):
    """A report job's corpus and options (``evaluation.report.options``)."""

    corpus = serializers.SlugField(max_length=100)

    def get_fields(self):
        fields = super().get_fields()
        fields.update({o.name: _api_field(o) for o in OPTIONS if o.api})
        return fields

    def validate_corpus(self, value):
        corpus = Corpus.objects.filter(name=value).first()
        if corpus is None:
            raise serializers.ValidationError(f"no corpus named {value!r}")
        return corpus

    def validate(self, data):
        name = data.get("judge")
        if name and judge_inputs.pick_judge(data["corpus"], name) is None:
            raise serializers.ValidationError(
                {"judge": f"judge {name!r} has no labels in corpus {data['corpus'].name}"}
            )
        return data


class ReportJobs(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = JobSerializer

    def get_queryset(self):
        return files.report_jobs()

    @extend_schema(request=ReportRequest, responses={202: JobSerializer})
    def post(self, request):
        form = ReportRequest(data=request.data)
        form.is_valid(raise_exception=True)
        d = form.validated_data
        job = start_report_from(d, request.user)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)


class ReportJob(generics.RetrieveAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = JobSerializer

    def get_queryset(self):
        return files.report_jobs()


class ReportJSON(APIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(
        operation_id="research_api_report_json", responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT}
    )
    def get(self, request, pk):
        job = get_object_or_404(files.report_jobs(), pk=pk)
        data = files.load_json(job)
        if data is None:
            note = f"; {job.state_note}" if job.state_note else ""
            return Response(
                {
                    "detail": f"report not available (job {job.status}{note})",
                    "status": job.status,
                    "stalled": job.stalled,
                },
                status=status.HTTP_409_CONFLICT,
            )
        return Response(data)


class ReportFileListing(serializers.Serializer):
    status = serializers.CharField()
    files = serializers.ListField(child=serializers.DictField(child=serializers.CharField()))


class ReportFiles(APIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(operation_id="research_api_report_files", responses=ReportFileListing)
    def get(self, request, pk):
        job = get_object_or_404(files.report_jobs(), pk=pk)
        return Response(
            {
                "status": job.status,
                "files": [
                    {"name": n, "url": request.build_absolute_uri(f"/research/api/reports/{job.pk}/files/{n}")}
                    for n in files.file_names(job)
                ],
            }
        )


class ReportFile(APIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(
        operation_id="research_api_report_file", responses={(200, "application/octet-stream"): OpenApiTypes.BINARY}
    )
    def get(self, request, pk, name):
        job = get_object_or_404(files.report_jobs(), pk=pk)
        path = files.file_path(job, name)
        if path is None:
            raise NotFound("no such file in this report")
        return FileResponse(open(path, "rb"), content_type=files.content_type(name), as_attachment=True, filename=name)


class StudyArchiveDownload(APIView):
    """The study archive of a corpus (SPEC 14): a zip with manifest.json. Admins only. Without panel
    ids (participants by pseudonym, SPEC 18) unless ``?full=1``: the full archive, which says so."""

    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request, pk):
        return archive_response(get_object_or_404(Corpus, pk=pk), full=request.query_params.get("full") == "1")


class StudyImportRequest(serializers.Serializer):
    file = serializers.FileField(validators=[max_upload_size], help_text="a zip archive written by export_study")
    corpus = serializers.RegexField(
        NAME_RE, max_length=100, required=False, allow_blank=True, default="", help_text="new corpus name"
    )

    def validate_corpus(self, value):
        if value and Corpus.objects.filter(name=value).exists():
            raise serializers.ValidationError(f"a corpus named {value!r} exists already")
        return value


class StudyImport(APIView):
    """Import a study archive as a background job (202 with the job; its progress and result at
    /api/jobs/<id>/). In one transaction; on any problem the job fails naming it and nothing changes."""

    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(request={"multipart/form-data": StudyImportRequest}, responses={202: JobSerializer})
    def post(self, request):
        form = StudyImportRequest(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        job = start_study_import(
            save_upload(upload), corpus=form.validated_data["corpus"], user=request.user, original_name=upload.name
        )
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
