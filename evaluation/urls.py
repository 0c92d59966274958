from django.urls import path

from evaluation import api, live, views

urlpatterns = [
    path("", views.reports, name="reports"),
    path("reports/<int:pk>/", views.report_detail, name="report-detail"),
    path("reports/<int:pk>/progress/", views.report_progress, name="report-progress"),
    path("reports/<int:pk>/files/<str:name>", views.report_file, name="report-file"),
    path("conclusions/", live.conclusions, name="conclusions"),
    path("conclusions/panel/", live.conclusions_panel, name="conclusions-panel"),
    path("api/conclusions/", live.ConclusionsAPI.as_view(), name="api-conclusions"),
    path("api/reports/", api.ReportJobs.as_view(), name="api-reports"),
    path("api/reports/<int:pk>/", api.ReportJob.as_view(), name="api-report"),
    path("api/reports/<int:pk>/report.json", api.ReportJSON.as_view(), name="api-report-json"),
    path("api/reports/<int:pk>/files/", api.ReportFiles.as_view(), name="api-report-files"),
    path("api/reports/<int:pk>/files/<str:name>", api.ReportFile.as_view(), name="api-report-file"),
    path("api/studies/<int:pk>/archive/", api.StudyArchiveDownload.as_view(), name="api-study-archive"),
    path("api/studies/import/", api.StudyImport.as_view(), name="api-study-import"),
]
