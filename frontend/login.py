"""Login throttling glue for django-axes (configured in sanitize_app.settings.security)."""

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.shortcuts import render
from django.utils import timezone
from django.utils.timesince import timeuntil
from rest_framework.throttling import BaseThrottle


def client_ip(request) -> str:
    """The client address for counting failed logins: the one the API throttles use
    (REST_FRAMEWORK's NUM_PROXIES decides whether X-Forwarded-For is believed), so that
    a header an attacker sends cannot give every guess a new address."""
    return BaseThrottle().get_ident(request)


def locked_out(request, original_response=None, credentials=None):
    """The login page's lock-out answer (AXES_LOCKOUT_CALLABLE), in the site's layout and
    saying how long to wait. Every try during the lock counts as a failure and starts the
    cool-off again (axes' default), so the wait is the whole cool-off from now."""
    cool_off = get_cool_off(request)
    now = timezone.now()
    context = {
        "username": get_client_username(request, credentials) or "",
        "failure_limit": get_failure_limit(request, credentials),
        "wait": timeuntil(now + cool_off, now) if cool_off else "",
    }
    return render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
