"""The OpenAPI schema and its documentation page, for logged-in users only unless
``settings.SANITIZE_API_DOCS_PUBLIC`` (read at each request, so it can change without a
restart and tests can switch it): a public description of every endpoint and field
helps an attacker more than a user.

The page works under the site's Content-Security-Policy with no exception: Swagger UI
is drf-spectacular's split view (its start-up script is served from its own URL,
``?script``, instead of inline). There is no Redoc page: Redoc styles itself with
inline <style> elements, builds its search index in a blob: worker and loads its logo
from cdn.redoc.ly, so it would need a weaker policy and a request to a third party from
a tool whose users handle personal data; Swagger UI documents the same schema."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.permissions import BasePermission


class DocsAccess(BasePermission):
    message = "Log in to read the API schema and its documentation."

    def has_permission(self, request, view) -> bool:
        return bool(settings.SANITIZE_API_DOCS_PUBLIC or (request.user and request.user.is_authenticated))


class SchemaView(SpectacularAPIView):
    permission_classes = [DocsAccess]

    def permission_denied(self, request, message=None, code=None):
        if not request.user.is_authenticated:
            raise NotAuthenticated(DocsAccess.message)
        super().permission_denied(request, message, code)


class _DocsPage:
    """A documentation page: an anonymous visitor is sent to the login page and back."""

    permission_classes = [DocsAccess]

    def handle_exception(self, exc):
        if isinstance(exc, NotAuthenticated | PermissionDenied) and not self.request.user.is_authenticated:
            return redirect_to_login(self.request.get_full_path())
        return super().handle_exception(exc)


class SwaggerView(_DocsPage, SpectacularSwaggerSplitView):
    pass
