from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import (
    dashboard_views,
    evaluation_views,
    export_views,
    preannotation_views,
    progress_views,
    review_views,
    training_views,
    views,
)

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("corpora/<int:pk>/", views.corpus_detail, name="corpus-detail"),
    path("corpora/<int:pk>/audit/", views.corpus_audit, name="corpus-audit"),
    path("corpora/<int:pk>/agreement/", dashboard_views.corpus_agreement_page, name="corpus-agreement"),
    path(
        "corpora/<int:pk>/agreement/<str:table>.csv",
        dashboard_views.corpus_agreement_csv,
        name="corpus-agreement-csv",
    ),
    path("corpora/<int:pk>/evaluation/", evaluation_views.corpus_evaluation, name="corpus-evaluation"),
    path("corpora/<int:pk>/evaluation.csv", evaluation_views.corpus_evaluation_csv, name="corpus-evaluation-csv"),
    path("corpora/<int:pk>/progress/", progress_views.corpus_progress_page, name="corpus-progress"),
    path("corpora/<int:pk>/progress/<str:table>.csv", progress_views.corpus_progress_csv, name="corpus-progress-csv"),
    path("corpora/<int:pk>/import/", views.corpus_import, name="corpus-import"),
    path("corpora/<int:pk>/export/", export_views.corpus_export, name="corpus-export"),
    path("imports/<int:pk>/", views.import_job_detail, name="import-job"),
    path("corpora/<int:pk>/preannotate/", preannotation_views.corpus_preannotate, name="corpus-preannotate"),
    path("preannotation-runs/<int:pk>/", preannotation_views.run_detail, name="preannotation-run"),
    path("documents/<int:pk>/", views.document_detail, name="document-detail"),
    path("work/", views.my_work, name="my-work"),
    path("reviews/", review_views.review_queue, name="review-queue"),
    path("corpora/<int:pk>/reviews/", review_views.corpus_reviews, name="corpus-reviews"),
    path("corpora/<int:pk>/models/", training_views.corpus_models, name="corpus-models"),
    path("corpora/<int:pk>/models/train/", training_views.train_now, name="corpus-models-train"),
    path("corpora/<int:pk>/models/rollback/", training_views.roll_back, name="corpus-models-rollback"),
    path("corpora/<int:pk>/models/<int:model_id>/promote/", training_views.promote, name="corpus-models-promote"),
    path("layers/<int:pk>/", include("frontend.workspace.urls")),
]
