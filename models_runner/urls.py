from django.urls import path

from models_runner import api, views

# Mounted under /runs/.
urlpatterns = [
    path("api/runs/", api.RunList.as_view(), name="api-runs"),
    path("api/runs/<id:pk>/", api.RunDetail.as_view(), name="api-run"),
    path("api/runs/<id:pk>/cancel/", api.RunCancel.as_view(), name="api-run-cancel"),
    path("api/backends/", api.BackendList.as_view(), name="api-backends"),
]

# Mounted at the site root, beside the human labels' downloads.
download_urlpatterns = [
    path("downloads/judge-labels/", views.judge_labels, name="download-judge-labels"),
]
