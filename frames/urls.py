"""The frame-check pages (same paths and URL names as when they were part of annotation's URLs)."""

from django.urls import path

from frames import api, attribute_views, views

urlpatterns = [
    path("frames/check/<id:fold_id>/", views.check, name="frame-check"),
    path("frames/check/<id:fold_id>/item/<id:handle>/", views.show_item, name="frame-check-item"),
    path("frames/check/<id:fold_id>/previous/", views.previous, name="frame-check-previous"),
    path("frames/check/<id:fold_id>/rate/", views.rate, name="frame-check-rate"),
    path("attributes/check/<id:fold_id>/", attribute_views.check, name="attribute-check"),
    path("attributes/check/<id:fold_id>/item/<id:handle>/", attribute_views.show_item, name="attribute-check-item"),
    path("attributes/check/<id:fold_id>/previous/", attribute_views.previous, name="attribute-check-previous"),
    path("attributes/check/<id:fold_id>/rate/", attribute_views.rate, name="attribute-check-rate"),
    path("api/attributes/", api.AttributeJobs.as_view(), name="api-attributes"),
]
