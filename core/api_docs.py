"""The API's documentation pages (Swagger UI, Redoc): logged out, a page with a login link.

The schema they load is for researchers and admins only (``/api/schema/`` answers 401 logged out,
403 to annotators and crowd participants: they have their own few endpoints and no use for a map
of the rest), so drf-spectacular's pages would show a bare "Failed to load API definition"; these
say what to do, and answer 403 to annotators as the schema does.
"""

from django.conf import settings
from django.shortcuts import render, resolve_url
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.permissions import BasePermission

from core import roles


class SchemaReaders(BasePermission):
    """Researchers and admins read the API's schema and its pages; logged out, the pages say to log in."""

    def has_permission(self, request, view):
        return not request.user.is_authenticated or roles.is_researcher(request.user)


class _LoginFirst:
    permission_classes = [SchemaReaders]

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
