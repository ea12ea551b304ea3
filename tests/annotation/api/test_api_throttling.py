"""API throttling (Django REST framework): each user, however authenticated, and each
anonymous client address gets a bounded number of requests per period; past it the
answer is 429 with Retry-After, and other users are not affected."""

import pytest
from django.urls import path
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from tests.conftest import make_user


@pytest.fixture(autouse=True)
def low_rates(monkeypatch):
    """Rates small enough to reach in a test. DRF copies DEFAULT_THROTTLE_RATES into the
    class when it is defined, so the class attribute is what counts (the suite's
    settings keep them out of every other test's reach)."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "2/min"})


@pytest.fixture
def users(db):
    return make_user("ursula"), make_user("viktor")


def session_client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_user_past_the_rate_gets_429_with_retry_after(users):
    client = session_client(users[0])
    assert [client.get("/api/corpora/").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/corpora/")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert "throttled" in refused.json()["detail"].lower()


def test_the_limit_is_per_user(users):
    ursula, viktor = session_client(users[0]), session_client(users[1])
    for _ in range(3):
        ursula.get("/api/corpora/")
    assert ursula.get("/api/corpora/").status_code == 429
    assert viktor.get("/api/corpora/").status_code == 200


def test_token_and_session_requests_of_one_user_share_the_budget(users):
    session = session_client(users[0])
    token = APIClient(headers={"Authorization": f"Token {Token.objects.create(user=users[0]).key}"})
    assert [session.get("/api/corpora/").status_code for _ in range(2)] == [200, 200]
    assert token.get("/api/corpora/").status_code == 200
    assert token.get("/api/corpora/").status_code == 429


class OpenView(APIView):
    """An API view anonymous users may use (the API's own views all need a login, and DRF
    checks permissions before throttles, so a refused request is never counted)."""

    permission_classes = [AllowAny]

    def get(self, request):
        return Response({"ok": True})


urlpatterns = [path("open/", OpenView.as_view())]


@pytest.mark.urls(__name__)
def test_anonymous_requests_are_counted_per_address_whatever_x_forwarded_for_says(db):
    here, elsewhere = APIClient(REMOTE_ADDR="203.0.113.7"), APIClient(REMOTE_ADDR="198.51.100.20")
    assert here.get("/open/", headers={"X-Forwarded-For": "192.0.2.1"}).status_code == 200
    assert here.get("/open/", headers={"X-Forwarded-For": "192.0.2.2"}).status_code == 200
    refused = here.get("/open/", headers={"X-Forwarded-For": "192.0.2.3"})
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert elsewhere.get("/open/").status_code == 200
