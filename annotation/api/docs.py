"""The OpenAPI schema and its two documentation pages, for logged-in users only unless
``settings.SANITIZE_API_DOCS_PUBLIC`` (read at each request, so it can change without a
restart and tests can switch it): a public description of every endpoint and field
helps an attacker more than a user.

The pages work under the site's Content-Security-Policy (script-src 'self'):
Swagger UI is drf-spectacular's split view (its start-up script is served from its own
URL, ``?script``, instead of inline), and Redoc is started by its ``<redoc>`` element
and the bundled script (``api/redoc.html``: no inline script, no Google Fonts). Redoc
writes its styles into <style> elements at run time (without them it does not render,
checked in Chromium) and builds its search index in a worker from a blob: URL, so its
page alone allows inline styles and blob: workers, and the footer logo its bundle loads
from cdn.redoc.ly (hard-coded; blocked, it is a reported violation on every visit).
Scripts stay 'self'. Swagger UI needs none of these exceptions: dropping the Redoc route
would leave the site without any."""

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.utils.decorators import method_decorator
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
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


REDOC_CSP = {
    "style-src": [SELF, UNSAFE_INLINE],
    "worker-src": [SELF, "blob:"],
    "img-src": [SELF, "data:", "https://cdn.redoc.ly"],
}


@method_decorator(csp_update(REDOC_CSP), name="dispatch")
class RedocView(_DocsPage, SpectacularRedocView):
    template_name = "api/redoc.html"
