from django.urls import path
from django.views.decorators.cache import cache_control
from django.views.i18n import JavaScriptCatalog

from core import api, i18n

# The strings of static/js (locale/) and of the apps' scripts, for the language of the request;
# pages ask for it with ?l=<language>, so the browser's hour-long copy changes with the language.
javascript_catalog = cache_control(max_age=3600, private=True)(
    JavaScriptCatalog.as_view(packages=["core", "annotation", "models_runner", "frames", "evaluation"])
)

urlpatterns = [
    path("api/jobs/", api.JobList.as_view(), name="api-jobs"),
    path("api/jobs/health/", api.JobHealth.as_view(), name="api-jobs-health"),
    path("api/jobs/<id:pk>/", api.JobDetail.as_view(), name="api-job"),
    path("api/jobs/<id:pk>/cancel/", api.JobCancel.as_view(), name="api-job-cancel"),
    path("language/", i18n.set_language, name="set-language"),
    path("jsi18n/", javascript_catalog, name="javascript-catalog"),
]
