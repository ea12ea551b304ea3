"""Login throttling (django-axes): failed logins are counted per (username, client IP);
past the limit that pair is refused, even with the right password, on a page that says
how long to wait, until the cool-off has passed."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client

from tests.conftest import make_user

OFFICE = "203.0.113.7"


@pytest.fixture
def nina(db, settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    return make_user("nina")  # password "pw-nina"


def log_in(username: str, password: str, ip: str = OFFICE, **headers):
    return Client(REMOTE_ADDR=ip, headers=headers).post("/login/", {"username": username, "password": password})


def fail(times: int, username: str = "nina", ip: str = OFFICE, **headers) -> None:
    for _ in range(times):
        response = log_in(username, "wrong-guess", ip, **headers)
        assert response.status_code == 200, "a wrong password below the limit shows the login form again"


def lock_out(username: str = "nina", ip: str = OFFICE) -> None:
    """Fail as often as the limit (3) allows: the last failure already gets the lock."""
    fail(2, username, ip)
    assert log_in(username, "wrong-guess", ip).status_code == 429


def assert_logged_in(response) -> None:
    assert response.status_code == 302
    assert response.url == "/"


def test_below_the_limit_a_wrong_password_is_only_an_error(nina):
    fail(2)
    assert_logged_in(log_in("nina", "pw-nina"))


def test_after_the_limit_the_right_password_is_refused_with_the_lock_out_page(nina):
    lock_out()
    response = log_in("nina", "pw-nina")
    page = response.content.decode()
    assert response.status_code == 429
    assert "Login locked" in page
    assert "Too many failed logins for <strong>nina</strong>" in page
    assert "(3 in a row)" in page
    assert "locked for 15\xa0minutes" in page
    assert "_auth_user_id" not in response.wsgi_request.session


def test_another_username_from_the_same_address_still_logs_in(nina):
    make_user("olga")
    lock_out()
    assert_logged_in(log_in("olga", "pw-olga"))


def test_the_same_username_from_another_address_still_logs_in(nina):
    lock_out()
    assert_logged_in(log_in("nina", "pw-nina", ip="198.51.100.20"))


def test_the_lock_lifts_after_the_cool_off(nina):
    lock_out()
    assert log_in("nina", "pw-nina").status_code == 429
    # Time travel: the failures (the try during the lock counted too) happened 16 minutes ago.
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16))
    assert_logged_in(log_in("nina", "pw-nina"))


def test_a_forged_x_forwarded_for_does_not_give_each_guess_a_new_address(nina):
    for n in range(2):
        fail(1, **{"X-Forwarded-For": f"192.0.2.{n}"})
    assert log_in("nina", "wrong-guess", **{"X-Forwarded-For": "192.0.2.2"}).status_code == 429
    assert log_in("nina", "pw-nina", **{"X-Forwarded-For": "192.0.2.99"}).status_code == 429


def test_a_successful_login_forgives_earlier_typos(nina):
    fail(2)
    assert_logged_in(log_in("nina", "pw-nina"))
    fail(2)
    assert_logged_in(log_in("nina", "pw-nina"))


def test_the_admin_login_is_throttled_too(nina):
    nina.is_staff = True
    nina.save()
    for _ in range(3):
        Client(REMOTE_ADDR=OFFICE).post("/admin/login/", {"username": "nina", "password": "wrong-guess"})
    response = Client(REMOTE_ADDR=OFFICE).post("/admin/login/", {"username": "nina", "password": "pw-nina"})
    assert response.status_code == 429
    assert "Login locked" in response.content.decode()
