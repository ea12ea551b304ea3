"""Limits against hostile use and the browser's content policy, all from the environment:
login throttling (django-axes), API throttling (Django REST framework's throttles) and
the Content-Security-Policy (django-csp). Imported by ``base``."""

from datetime import timedelta

from csp.constants import NONE, SELF

from .env import env_bool, env_int, env_str

__all__ = [  # the settings; base merges ``api_throttling`` into REST_FRAMEWORK
    "AXES_LOCKOUT_PARAMETERS",
    "AXES_FAILURE_LIMIT",
    "AXES_COOLOFF_TIME",
    "AXES_HANDLER",
    "AXES_RESET_ON_SUCCESS",
    "AXES_LOCKOUT_CALLABLE",
    "AXES_HTTP_RESPONSE_CODE",
    "AXES_CLIENT_IP_CALLABLE",
    "CONTENT_SECURITY_POLICY",
    "CONTENT_SECURITY_POLICY_REPORT_ONLY",
]

# How many proxies in front of the app append to X-Forwarded-For (0: none, the client's
# address is REMOTE_ADDR). With the wrong count an attacker picks their own address by
# sending the header, and every per-IP limit below is void.
_NUM_PROXIES = env_int("SANITIZE_NUM_PROXIES", 0)

# --- Logins: django-axes --------------------------------------------------------------
# Failed logins are counted per (username, client IP) pair, not per IP and not per
# username: an office behind one NAT address shares an IP, so a per-IP lock would let one
# guesser lock everybody out; a per-username lock would let anyone lock out any colleague
# from anywhere. The pair stops password guessing against one account from one place.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env_int("SANITIZE_LOGIN_FAILURE_LIMIT", 5)
# Minutes until a lock lifts by itself; 0 keeps it until an admin runs `manage.py axes_reset`.
_COOLOFF_MINUTES = env_int("SANITIZE_LOGIN_COOLOFF_MINUTES", 15)
AXES_COOLOFF_TIME = timedelta(minutes=_COOLOFF_MINUTES) if _COOLOFF_MINUTES > 0 else None
# The database handler: the failure counts live in the database every web process and
# host shares (no per-process memory, no cache that a flush would empty).
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_RESET_ON_SUCCESS = True  # a good password clears the pair's earlier typos
# The lock-out page in the site's layout, saying how long to wait (not axes' plain text).
AXES_LOCKOUT_CALLABLE = "frontend.login.locked_out"
AXES_HTTP_RESPONSE_CODE = 429  # Too Many Requests: the lock is about the rate, not a permission
# The same client address as the API throttles (DRF's reading of NUM_PROXIES).
AXES_CLIENT_IP_CALLABLE = "frontend.login.client_ip"

# --- API: Django REST framework throttling (merged into REST_FRAMEWORK by base) ------
# Counters live in the default cache: Redis whenever one is configured, so every web
# process and host counts together. A fast annotator decides about one entity a second
# and a scripted client pages through lists; 1200 requests a minute per user (20/s) is
# far above both, and stops a runaway script or a stolen token from flooding the server.
# Anonymous requests are counted per client IP; DRF checks permissions before throttles,
# so this only counts what anonymous users may use (the schema and docs when public).
api_throttling = {
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("SANITIZE_API_ANON_RATE", "60/min"),
        "user": env_str("SANITIZE_API_USER_RATE", "1200/min"),
    },
    "NUM_PROXIES": _NUM_PROXIES,
}

# --- Content-Security-Policy: django-csp ----------------------------------------------
# Only this origin's files: no inline script, no inline style (not even style
# attributes), no eval. The pages are written for it (see the browser test
# tests/frontend/test_csp_browser.py); a new inline style or handler shows up there.
_CSP_DIRECTIVES = {
    "default-src": [SELF],
    "script-src": [SELF],
    "style-src": [SELF],
    "img-src": [SELF, "data:"],
    "font-src": [SELF],
    "connect-src": [SELF],
    "object-src": [NONE],
    "base-uri": [SELF],
    "form-action": [SELF],
    "frame-ancestors": [NONE],
}
if env_str("SANITIZE_CSP_REPORT_URI", ""):
    _CSP_DIRECTIVES["report-uri"] = [env_str("SANITIZE_CSP_REPORT_URI")]
# Report-only: browsers report violations (console, report-uri) but block nothing; for a
# careful roll-out after changing templates.
if env_bool("SANITIZE_CSP_REPORT_ONLY", False):
    CONTENT_SECURITY_POLICY = None
    CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": _CSP_DIRECTIVES}
else:
    CONTENT_SECURITY_POLICY = {"DIRECTIVES": _CSP_DIRECTIVES}
    CONTENT_SECURITY_POLICY_REPORT_ONLY = None
