"""Production: every secret from the environment, HTTPS only, PostgreSQL by default."""

from .base import *  # noqa: F401,F403
from .base import MIDDLEWARE, database_config
from .env import env_bool, env_int, env_str

DEBUG = False
# Static files served by the app itself (compressed, cache-busted names): no separate
# web server is needed in front of gunicorn.
MIDDLEWARE = [MIDDLEWARE[0], "whitenoise.middleware.WhiteNoiseMiddleware", *MIDDLEWARE[1:]]
SECRET_KEY = env_str("SECRET_KEY")  # no default: refuse to start without one
DATABASES = {"default": database_config("postgres://postgres@127.0.0.1:5432/sanitize_app")}

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]  # container health checks speak plain HTTP
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
