from django.urls import path

from models_runner import api

urlpatterns = [
    path("api/runs/", api.RunList.as_view(), name="api-runs"),
    path("api/runs/<int:pk>/", api.RunDetail.as_view(), name="api-run"),
    path("api/runs/<int:pk>/cancel/", api.RunCancel.as_view(), name="api-run-cancel"),
    path("api/backends/", api.BackendList.as_view(), name="api-backends"),
]
