"""The API's documentation pages (Swagger UI, Redoc): logged out, a page with a login link.

The schema they load is for logged-in users only (``/api/schema/`` answers 401 otherwise), so
drf-spectacular's pages would show a bare "Failed to load API definition"; these say what to do.
"""

from django.conf import settings
from django.shortcuts import render, resolve_url
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView


class _LoginFirst:
    def get(self, request, *args, **kwargs):
        if not request.user.is_authenticated and "script" not in request.GET:
            # The login page is named by the settings (LOGIN_URL), not by an app above core.
            context = {"next": request.get_full_path(), "login_url": resolve_url(settings.LOGIN_URL)}
            return render(request, "core/api_docs_login.html", context)
        return super().get(request, *args, **kwargs)


class SwaggerView(_LoginFirst, SpectacularSwaggerSplitView):
    schema = None  # a page about the API, not an endpoint of it: left out of the schema


class RedocView(_LoginFirst, SpectacularRedocView):
    schema = None  # as above
