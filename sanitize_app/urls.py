from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from .health import healthz

urlpatterns = [
    path("healthz/", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    # The one-time link a manager hands to a new or activated account (annotation.services.team).
    path(
        "accounts/set-password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(template_name="registration/set_password.html"),
        name="password_reset_confirm",
    ),
    path(
        "accounts/set-password/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="registration/set_password_done.html"),
        name="password_reset_complete",
    ),
    path("", include("frontend.urls")),
]
