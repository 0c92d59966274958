from django.contrib.auth import views as auth_views
from django.urls import path

from annotation import api, api_studies
from annotation.views import annotate, downloads, flags, folds_admin, home, item_list, quality, studies_admin, study

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("annotate/<id:fold_id>/", annotate.annotate, name="annotate"),
    path("annotate/<id:fold_id>/item/<id:handle>/", annotate.show_item, name="annotate-item"),
    path("annotate/<id:fold_id>/previous/", annotate.previous, name="previous"),
    path("annotate/<id:fold_id>/judge/", annotate.judge, name="judge"),
    path("annotate/<id:fold_id>/items/", item_list.item_list, name="item-list"),
    path("annotate/<id:fold_id>/review/", item_list.review, name="review"),
    path("annotate/<id:fold_id>/flag/", flags.flag_item, name="flag-item"),
    path("folds/", folds_admin.fold_assignments, name="fold-assignments"),
    path("folds/<id:corpus_id>/action/", folds_admin.fold_action, name="fold-action"),
    path("folds/<id:corpus_id>/adjudicate/", quality.adjudicate, name="adjudicate"),
    path("folds/<id:corpus_id>/unassign/<id:assignment_id>/", folds_admin.confirm_unassign, name="fold-unassign"),
    path("study/<slug:slug>/", study.entry, name="study-entry"),
    path("withdraw/", study.withdraw, name="study-withdraw"),
    path("studies/", studies_admin.study_list, name="studies"),
    path("studies/<slug:slug>/", studies_admin.study_page, name="study-admin"),
    path("studies/<slug:slug>/participants.csv", studies_admin.participants_csv, name="study-participants-csv"),
    path(
        "studies/<slug:slug>/participants/<str:code>/data.json",
        studies_admin.participant_data,
        name="study-participant-data",
    ),
    path("downloads/labels/", downloads.labels, name="download-labels"),
    path("downloads/triplet-map/", downloads.triplet_map, name="download-triplet-map"),
    path("downloads/flags/", downloads.flags, name="download-flags"),
    path("downloads/design/", downloads.design, name="download-design"),
    # REST API
    path("api/corpora/", api.CorpusList.as_view(), name="api-corpora"),
    path("api/corpora/<id:pk>/", api.CorpusDetail.as_view(), name="api-corpus"),
    path("api/systems/", api.SystemList.as_view(), name="api-systems"),
    path("api/labels/", api.LabelList.as_view(), name="api-labels"),
    path("api/imports/", api.ImportStart.as_view(), name="api-imports"),
    path("api/quality/", api.Quality.as_view(), name="api-quality"),
    path("api/studies/", api_studies.StudyList.as_view(), name="api-studies"),
    path("api/studies/<slug:slug>/participants/", api_studies.ParticipantList.as_view(), name="api-study-participants"),
    path(
        "api/studies/<slug:slug>/participants/<str:code>/erase/",
        api_studies.ParticipantErase.as_view(),
        name="api-study-participant-erase",
    ),
    path("api/my/folds/", api.MyFolds.as_view(), name="api-my-folds"),
    path("api/my/folds/<id:pk>/next/", api.NextItem.as_view(), name="api-next-item"),
    path("api/my/folds/<id:pk>/items/<id:handle>/", api.ItemDetail.as_view(), name="api-item"),
    path("api/my/folds/<id:pk>/judge/", api.Judge.as_view(), name="api-judge"),
]
