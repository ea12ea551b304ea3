"""The API holds under its own schema: schemathesis generates requests for every
operation of the OpenAPI schema (valid ones, invalid ones, and valid ones aimed at the
objects of a small corpus), sends them as a manager and as an annotator, and checks
that no answer is a server error and that every documented answer matches its schema
(body and content type). The status codes themselves are not checked against the
schema: drf-spectacular documents only each operation's success, so every 400, 403, 404
and 409 would count as a failure.

``SANITIZE_FUZZ_EXAMPLES`` sets the examples per operation and role (default 15, which
keeps the suite within its time on two cores; 80 passed on PostgreSQL) for a
deeper run. Each example runs inside a savepoint that is rolled back, so every request
meets the same corpus (a merge or a withdrawal does not use up the fixture's objects).
Throttling is switched off for the run. DRF binds the throttle classes
(``APIView.throttle_classes``) and their rates (``SimpleRateThrottle.THROTTLE_RATES``) when
it is imported, so overriding ``REST_FRAMEWORK`` in the settings would not reach them;
the test gives every scope the rate None instead, which DRF's rate throttles let through
whatever classes and rates the environment configures."""

import json
import os
import traceback
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import schemathesis
from django.core.signals import got_request_exception
from django.db import transaction
from django.test.client import ClientHandler
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.throttling import SimpleRateThrottle
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from annotation.models import AnnotationLayer, AuditEvent, Mention
from annotation.services import review
from annotation.services.mentions import create_mention

EXAMPLES = int(os.environ.get("SANITIZE_FUZZ_EXAMPLES", "15"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
# The kind of object each collection holds: a path's {id} and a body's field of that
# name are aimed at the fixture's object of that kind.
COLLECTIONS = {
    "corpora": "corpus",
    "memberships": "membership",
    "documents": "document",
    "layers": "layer",
    "layer-reviews": "layer",
    "mentions": "mention",
    "entities": "entity",
    "audit-events": "audit_event",
    "review-notes": "note",
    "review-pairs": "review_pair",
}
BODY_FIELDS = {"corpus", "document", "layer", "mention", "entity", "source"}
# Accounts a command names, aimed at the fixture's people (the manager pairs, adds,
# hands over...).
BODY_NAMES = {
    "first": "ann_annotator",
    "second": "bob_annotator",
    "user": "bob_annotator",
    "annotator": "bob_annotator",
    "reviewer": "rita_reviewer",
    "users": ["bob_annotator"],
    "annotators": ["ann_annotator", "bob_annotator"],
}

_EVERYONE = {
    "GET /api/entities/",
    "GET /api/layers/{id}/",
    "PATCH /api/entities/{id}/",
    "PATCH /api/mentions/{id}/",
    "POST /api/entities/{id}/merge/",
    "POST /api/mentions/{id}/split/",
}
REACHED = {
    "manager": _EVERYONE | {"POST /api/corpora/", "POST /api/memberships/", "POST /api/layers/{id}/withdraw/"},
    "ann": _EVERYONE,
}


class _Undo(Exception):
    """Raised inside the example's savepoint to roll its changes back."""


class DjangoApp:
    """The project as a WSGI application for schemathesis, through Django's test handler:
    it keeps the test's database connection open (a plain WSGIHandler closes it at the end
    of each request) and records the traceback of any unhandled exception."""

    def __init__(self):
        self.handler = ClientHandler(enforce_csrf_checks=True)
        self.tracebacks: list[str] = []

    def __call__(self, environ, start_response):
        response = self.handler(environ)
        headers = list(response.items()) + [
            ("Set-Cookie", c.output(header="").strip()) for c in response.cookies.values()
        ]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        # Materialised here: the WSGI client would call ``close()`` on the response and
        # fire the request_finished signal that closes the connection.
        if response.streaming:
            return [b"".join(response.streaming_content)]
        return [response.content]

    def record(self, sender, request=None, **kwargs):
        self.tracebacks.append(traceback.format_exc())


def api_schema() -> dict:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


@pytest.fixture
def fuzz_corpus(scenario):
    """The shared scenario (one imported document with its reviewed layer, ann's and
    bob's layers, rita reviewing ann's, a second corpus) plus, on ann's layer, a second
    entity of two mentions (so that a merge into the first and a split out of it can
    succeed), a review note and a review pair: every kind of object in the API exists."""
    ann_layer, manager, ann = scenario["ann_layer"], scenario["manager"], scenario["ann"]
    first = scenario["ann_mention"]
    # "Republic of Turkey" (offsets 76-94) and "Turkey" joined to it.
    pair = create_mention(ann_layer, actor=ann, start_offset=76, end_offset=94, entity_type="ORG")
    create_mention(ann_layer, actor=ann, start_offset=88, end_offset=94, entity_type="LOC", entity=pair.entity_id)
    review.pair_annotators(scenario["corpus"], ann, scenario["bob"], actor=manager)
    noted = Mention.objects.filter(layer=scenario["imported_layer"]).order_by("id").first()
    note = review.open_thread(scenario["imported_layer"], actor=manager, body="Check this one.", mention=noted)
    ids = {
        "corpus": scenario["corpus"].pk,
        "membership": scenario["corpus"].memberships.order_by("id").first().pk,
        "document": scenario["document"].pk,
        "layer": ann_layer.pk,
        "mention": pair.pk,
        "entity": first.entity_id,
        "source": pair.entity_id,
        "audit_event": AuditEvent.objects.filter(layer=ann_layer).order_by("id").first().pk,
        "note": note.pk,
        "review_pair": scenario["corpus"].review_pairs.get().pk,
    }
    return {**scenario, "ids": ids}


@contextmanager
def unthrottled() -> Iterator[None]:
    """Every throttle scope without a rate (DRF lets such requests through)."""
    previous = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = defaultdict(lambda: None)
    try:
        yield
    finally:
        SimpleRateThrottle.THROTTLE_RATES = previous


def _aimed(ids: dict, layer_id: int):
    """A case with its path id and its id-like body fields pointing at the fixture's
    objects, and the layer's current version: the requests that reach the services."""

    def aim(case):
        kind = COLLECTIONS.get(case.operation.path.split("/")[2])
        if kind and "id" in case.path_parameters:
            case.path_parameters["id"] = ids[kind]
        if isinstance(case.body, dict):
            for field in BODY_FIELDS & set(case.body):
                case.body[field] = ids[field]
            for field in BODY_NAMES.keys() & set(case.body):
                case.body[field] = BODY_NAMES[field]
            if "documents" in case.body:
                case.body["documents"] = [ids["document"]]
            if "layer_version" in case.body:
                case.body["layer_version"] = AnnotationLayer.objects.values_list("version", flat=True).get(pk=layer_id)
        return case

    return aim


def _strategies(operation, aim):
    positive = operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
    strategies = [positive, positive.map(aim)]
    try:
        strategies.append(operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    except Exception:  # an operation with nothing to negate
        pass
    return st.one_of(strategies)


def _fuzz(operation, headers: dict, aim, app: DjangoApp, failures: dict, succeeded: set) -> None:
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_strategies(operation, aim))
    def run(case):
        app.tracebacks.clear()
        try:
            with transaction.atomic():
                response = case.call(headers=headers)
                raise _Undo(response)
        except _Undo as undo:
            response = undo.args[0]
        if response.status_code < 300:
            succeeded.add(operation.label)
        try:
            case.validate_response(response, checks=CHECKS)
        except (AssertionError, FailureGroup) as failure:  # collected, reported together below
            key = (operation.label, response.status_code, type(failure).__name__)
            if key not in failures:
                server = app.tracebacks[-1] if app.tracebacks else ""
                failures[key] = f"{case.as_curl_command(headers=headers)}\n{failure}\n{server}"

    run()


@pytest.mark.parametrize("role", ["manager", "ann"])
def test_no_operation_answers_a_server_error_or_breaks_its_schema(fuzz_corpus, role):
    app = DjangoApp()
    schema = schemathesis.openapi.from_dict(api_schema())
    schema.app = app
    token = Token.objects.create(user=fuzz_corpus[role])
    headers = {"Authorization": f"Token {token.key}"}
    aim = _aimed(fuzz_corpus["ids"], fuzz_corpus["ann_layer"].pk)
    failures: dict = {}
    succeeded: set[str] = set()
    operations = 0
    got_request_exception.connect(app.record)
    try:
        with unthrottled():
            for result in schema.get_all_operations():
                operation = result.ok()
                operations += 1
                _fuzz(operation, headers, aim, app, failures, succeeded)
    finally:
        got_request_exception.disconnect(app.record)
    assert operations >= 50, "the schema lost its operations"
    # The run reaches the services, not only the validation: these answered 2xx at least once.
    assert REACHED[role] <= succeeded, f"never succeeded: {sorted(REACHED[role] - succeeded)}"
    assert not failures, f"{len(failures)} failures:\n\n" + "\n\n".join(failures.values())
