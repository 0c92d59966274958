"""Role checks for class-free views: decorators that answer 403 to the wrong role."""
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from annotation import roles


def require(check):
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
