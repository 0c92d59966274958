"""REST API of the jobs (DRF): list, detail, cancel, and whether jobs can run now (health).

Researchers and admins read jobs; only admins cancel one and read errors in full (the serializer,
which other apps' APIs use for their jobs too, is ``core.serializers.JobSerializer``)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core import roles
from core.models import Job
from core.permissions import IsAdminRole, IsResearcherRole
from core.reaper import health
from core.runner import request_cancel
from core.serializers import JobSerializer


class HealthSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    broker_ok = serializers.BooleanField()
    broker_error = serializers.CharField()
    workers = serializers.ListField(child=serializers.DictField())
    message = serializers.CharField()


class JobHealth(APIView):
    """Can jobs run now: the broker answers, and workers were seen recently."""

    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(responses=HealthSerializer)
    def get(self, request):
        data = health()
        if not roles.is_admin(request.user):
            data["broker_error"] = "unreachable" if data["broker_error"] else ""
        return Response(HealthSerializer(data).data)


class JobList(generics.ListAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = JobSerializer
    queryset = Job.objects.all()


class JobDetail(generics.RetrieveAPIView):
    permission_classes = [IsAuthenticated, IsResearcherRole]
    serializer_class = JobSerializer
    queryset = Job.objects.all()


class JobCancel(APIView):
    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(request=None, responses=JobSerializer)
    def post(self, request, pk):
        job = request_cancel(get_object_or_404(Job, pk=pk))
        return Response(JobSerializer(job, context={"request": request}).data)
