from django.urls import path

from evaluation import api, live, views

urlpatterns = [
    path("", views.reports, name="reports"),
    path("reports/<id:pk>/", views.report_detail, name="report-detail"),
    path("reports/<id:pk>/progress/", views.report_progress, name="report-progress"),
    path("reports/<id:pk>/files/<str:name>", views.report_file, name="report-file"),
    path("conclusions/", live.conclusions, name="conclusions"),
    path("conclusions/panel/", live.conclusions_panel, name="conclusions-panel"),
    path("api/conclusions/", live.ConclusionsAPI.as_view(), name="api-conclusions"),
    path("api/reports/", api.ReportJobs.as_view(), name="api-reports"),
    path("api/reports/<id:pk>/", api.ReportJob.as_view(), name="api-report"),
    path("api/reports/<id:pk>/report.json", api.ReportJSON.as_view(), name="api-report-json"),
    path("api/reports/<id:pk>/files/", api.ReportFiles.as_view(), name="api-report-files"),
    path("api/reports/<id:pk>/files/<str:name>", api.ReportFile.as_view(), name="api-report-file"),
    path("api/studies/<id:pk>/archive/", api.StudyArchiveDownload.as_view(), name="api-study-archive"),
    path("api/studies/import/", api.StudyImport.as_view(), name="api-study-import"),
]
