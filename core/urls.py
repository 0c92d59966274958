from django.urls import path

from core import api

urlpatterns = [
    path("api/jobs/", api.JobList.as_view(), name="api-jobs"),
    path("api/jobs/health/", api.JobHealth.as_view(), name="api-jobs-health"),
    path("api/jobs/<id:pk>/", api.JobDetail.as_view(), name="api-job"),
    path("api/jobs/<id:pk>/cancel/", api.JobCancel.as_view(), name="api-job-cancel"),
]
