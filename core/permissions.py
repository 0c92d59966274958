"""Role checks: DRF permission classes for the API, and decorators for class-free views that answer
403 to the wrong role (and send anonymous users to the login page)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from core import roles


class IsAdminRole(BasePermission):
    def has_permission(self, request, view):
        return roles.is_admin(request.user)


class IsResearcherRole(BasePermission):
    def has_permission(self, request, view):
        return roles.is_researcher(request.user)


class IsAnnotatorRole(BasePermission):
    def has_permission(self, request, view):
        return roles.is_annotator(request.user)


def require(check):
    """A view decorator: login required, then ``check(user)`` or 403."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not check(request.user):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


annotator_required = require(roles.is_annotator)
researcher_required = require(roles.is_researcher)
admin_required = require(roles.is_admin)
