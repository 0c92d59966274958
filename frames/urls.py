"""The pages of every kind of human check (``frames.human_checks``), four URLs a kind under its path
and URL name (``frames/check/...`` named ``frame-check...``, ``attributes/check/...`` named
``attribute-check...``), and the attribute-derivation API."""

from django.urls import path

from frames import api, views
from frames.attribute_checks import ATTRIBUTE_CHECK
from frames.checking import FRAME_CHECK


def check_urls(kind):
    """The four pages of one kind of check: the next item, an item by handle, the previous one, the POST."""
    given = {"kind": kind.fold_kind}
    return [
        path(f"{kind.path}/<id:fold_id>/", views.check, given, name=kind.url_name),
        path(f"{kind.path}/<id:fold_id>/item/<id:handle>/", views.show_item, given, name=f"{kind.url_name}-item"),
        path(f"{kind.path}/<id:fold_id>/previous/", views.previous, given, name=f"{kind.url_name}-previous"),
        path(f"{kind.path}/<id:fold_id>/rate/", views.rate, given, name=f"{kind.url_name}-rate"),
    ]


FRAME, ATTRIBUTE = {"kind": FRAME_CHECK.name}, {"kind": ATTRIBUTE_CHECK.name}
# The two kinds' pages spelled out (``check_urls`` of their records, which a test compares), so that
# bin/check-architecture reads their names as frames' (it reads literal URL names only).
urlpatterns = [
    path("frames/check/<id:fold_id>/", views.check, FRAME, name="frame-check"),
    path("frames/check/<id:fold_id>/item/<id:handle>/", views.show_item, FRAME, name="frame-check-item"),
    path("frames/check/<id:fold_id>/previous/", views.previous, FRAME, name="frame-check-previous"),
    path("frames/check/<id:fold_id>/rate/", views.rate, FRAME, name="frame-check-rate"),
    path("api/attributes/", api.AttributeJobs.as_view(), name="api-attributes"),
    path("attributes/check/<id:fold_id>/", views.check, ATTRIBUTE, name="attribute-check"),
    path("attributes/check/<id:fold_id>/item/<id:handle>/", views.show_item, ATTRIBUTE, name="attribute-check-item"),
    path("attributes/check/<id:fold_id>/previous/", views.previous, ATTRIBUTE, name="attribute-check-previous"),
    path("attributes/check/<id:fold_id>/rate/", views.rate, ATTRIBUTE, name="attribute-check-rate"),
]
