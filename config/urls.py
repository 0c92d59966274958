from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import IsAuthenticated

from core.api_docs import RedocView, SwaggerView
from core.permissions import IsResearcherRole
from models_runner.urls import download_urlpatterns as judge_downloads

urlpatterns = [
    # The Job model moved from the annotation app to core: its admin pages' old addresses still work.
    re_path(
        r"^admin/annotation/job/(?P<rest>.*)$", RedirectView.as_view(url="/admin/core/job/%(rest)s", query_string=True)
    ),
    # The frame models moved from annotation to frames: the same for their admin pages.
    re_path(
        r"^admin/annotation/(?P<model>framelexicon|frameannotation|framecheck)/(?P<rest>.*)$",
        RedirectView.as_view(url="/admin/frames/%(model)s/%(rest)s", query_string=True),
    ),
    path("admin/", admin.site.urls),
    path(
        "api/schema/",
        SpectacularAPIView.as_view(permission_classes=[IsAuthenticated, IsResearcherRole]),
        name="api-schema",
    ),
    path("api/docs/", SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("research/", include("evaluation.urls")),
    path("runs/", include("models_runner.urls")),
    path("", include("frames.urls")),
    path("", include("core.urls")),
    path("", include(judge_downloads)),
    path("", include("annotation.urls")),
]
