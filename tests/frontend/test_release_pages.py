"""The manager's release pages: starting a release (and the service's refusals next to
their fields), the comparison of a corpus's releases, a release's progress and metrics,
one document side by side with its original, the downloads; and every release URL
closed to annotators, reviewers, outsiders and removed managers."""

import json
import zipfile
from html.parser import HTMLParser
from io import BytesIO

import pytest

from annotation.enums import Role
from annotation.models import CorpusMembership, Release, ReleaseDocument
from tests.conftest import make_user

from .conftest import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

CANPOLAT = "001-79436"


@pytest.fixture
def source(pick):
    return pick(CANPOLAT)[0]


@pytest.fixture
def documents(corpus, source, import_documents):
    import_documents(corpus, [source])
    return corpus.documents.get()


def start(client, corpus, capture, **data):
    with capture(execute=True):
        return client.post(f"/corpora/{corpus.pk}/releases/", data)


@pytest.fixture
def release(corpus, people, documents, django_capture_on_commit_callbacks):
    """A numbered-placeholder release of the reviewed layer, run to the end."""
    response = start(
        client_for(people["manager"]),
        corpus,
        django_capture_on_commit_callbacks,
        source="reviewed",
        strategy="placeholder",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return Release.objects.get()


class Columns(HTMLParser):
    """The text of each column of the side-by-side view (without the keyboard-only
    buttons) and its highlighted runs: (data-start, data-end, text)."""

    COLUMNS = ("original-text", "sanitized-text")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = dict.fromkeys(self.COLUMNS, "")
        self.marks = {column: [] for column in self.COLUMNS}
        self.popovers, self.targets = set(), []
        self._column, self._depth, self._skip, self._mark = None, 0, 0, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "popover" in attrs:
            self.popovers.add(attrs["id"])
        if "popovertarget" in attrs:
            self.targets.append(attrs["popovertarget"])
        if self._column is None:
            if attrs.get("id") in self.COLUMNS:
                self._column, self._depth = attrs["id"], 1
            return
        self._depth += 1
        if tag == "button" and "rep-key" in attrs.get("class", ""):
            self._skip = self._depth
        elif tag == "mark":
            self._mark = [int(attrs["data-start"]), int(attrs["data-end"]), ""]

    def handle_endtag(self, tag):
        if self._column is None:
            return
        if tag == "mark" and self._mark is not None:
            self.marks[self._column].append(tuple(self._mark))
            self._mark = None
        if self._skip == self._depth:
            self._skip = 0
        self._depth -= 1
        if self._depth == 0:
            self._column = None

    def handle_data(self, data):
        if self._column is None or self._skip:
            return
        self.text[self._column] += data
        if self._mark is not None:
            self._mark[2] += data


def columns_of(page: str) -> Columns:
    parser = Columns()
    parser.feed(page)
    return parser


# -- who may see releases ------------------------------------------------------------


def release_urls(corpus, release, document) -> list[str]:
    return [
        f"/corpora/{corpus.pk}/releases/",
        f"/releases/{release.pk}/",
        f"/releases/{release.pk}/download/json/",
        f"/releases/{release.pk}/documents/{document.pk}/",
    ]


def test_only_the_corpus_managers_reach_any_release_page(
    corpus, people, documents, release, django_capture_on_commit_callbacks
):
    removed = make_user("rémi_removed")
    membership = CorpusMembership.objects.create(corpus=corpus, user=removed, role=Role.MANAGER)
    assert client_for(removed).get(f"/releases/{release.pk}/").status_code == 200  # a manager, before removal
    membership.delete()
    refused = {"ann": people["ann"], "rita": people["rita"], "outsider": people["outsider"], "removed": removed}
    for name, user in refused.items():
        client = client_for(user)
        for url in release_urls(corpus, release, documents):
            status = client.get(url).status_code
            # The corpus page tells its members they may not (403); a release is not
            # theirs to know of (404).
            expected = (403,) if name in ("ann", "rita") and url.startswith("/corpora/") else (404,)
            assert status in expected, f"{name} {url}: {status}"
        response = start(client, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy="label")
        assert response.status_code in (403, 404), name
    assert Release.objects.count() == 1
    assert client_for(people["manager"]).get(f"/releases/{release.pk}/").status_code == 200


def test_the_corpus_page_links_to_the_releases_for_managers_only(corpus, people, documents):
    link = f'href="/corpora/{corpus.pk}/releases/"'
    assert link in client_for(people["manager"]).get(f"/corpora/{corpus.pk}/").content.decode()
    assert link not in client_for(people["ann"]).get(f"/corpora/{corpus.pk}/").content.decode()


def test_an_anonymous_visitor_is_sent_to_log_in(corpus, release, documents):
    from django.test import Client

    for url in release_urls(corpus, release, documents):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), url


# -- starting a release ---------------------------------------------------------------


def test_the_form_offers_every_strategy_and_the_annotators_with_finished_layers(
    corpus, people, documents, settings, pick, import_documents
):
    import_documents(corpus, pick("001-83927"))  # annotator1 and annotator10 finished it
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "llm_base_url": ""}
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    for strategy in ("suppress", "stars", "label", "placeholder", "rules", "intact"):
        assert f'value="{strategy}"' in page
    assert "keeps the first one an inference attacker cannot invert" in page
    # annotator1 and annotator10 finished their imported layers; ann has none.
    assert '<option value="annotator1">' in page and '<option value="annotator10">' in page
    assert '<option value="ann_annotator">' not in page
    assert "No LLM is configured" in page and "offline attacker" in page
    assert 'id="no-releases"' in page


def test_the_form_says_which_llm_is_configured_without_its_key(corpus, people, documents, settings):
    settings.SANITIZE_RELEASE = {
        **settings.SANITIZE_RELEASE,
        "llm_base_url": "http://llm-user:llm-password@127.0.0.1:8088/v1",
        "llm_model": "mistral-7b-instruct",
        "llm_api_key": "sk-very-secret",
    }
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert "An LLM is configured (mistral-7b-instruct at http://127.0.0.1:8088/v1)" in page
    assert "sk-very-secret" not in page and "llm-password" not in page and "llm-user" not in page


def test_a_manager_starts_a_release_and_follows_it_to_its_page(corpus, people, documents, release):
    manager = client_for(people["manager"])
    assert release.status == Release.Status.SUCCEEDED and release.created_by == people["manager"]
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert "Succeeded" in page and "1 of 1 document sanitized" in page
    assert page.count("<progress") == 1 and 'value="100"' in page
    assert "hx-trigger" not in page  # a finished release stops polling
    item = release.documents.get()
    assert f'href="/releases/{release.pk}/documents/{documents.pk}/">{CANPOLAT}</a>' in page
    for fmt in ("json", "zip", "masks", "tri"):
        assert f'href="/releases/{release.pk}/download/{fmt}/"' in page
    assert 'id="release-metrics"' in page and 'id="release-paths"' in page
    # Every entity of a placeholder release is fixed by the strategy.
    fixed = item.decisions.count()
    assert (
        fixed > 0
        and f'<td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num">{fixed}</td>' in page
    )
    # The comparison lists it with its link.
    listing = manager.get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert f'href="/releases/{release.pk}/">Release {release.pk}</a>' in listing
    assert 'title="Numbered placeholders">Placeholders</td>' in listing and "<td>Reviewed layers</td>" in listing


def test_a_running_release_polls_one_progress_partial(corpus, people, documents):
    release = Release.objects.create(
        corpus=corpus, source="reviewed", strategy="label", status="running", documents_total=1
    )
    ReleaseDocument.objects.create(release=release, document=documents)
    manager = client_for(people["manager"])
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert page.count('hx-trigger="every 1s"') == 1 and page.count("<progress") == 1
    assert "0 of 1 document sanitized" in page and 'id="release-metrics"' not in page
    partial = manager.get(f"/releases/{release.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert '<div id="release-live"' in partial and "<html" not in partial and partial.count("<progress") == 1
    # Its files are not ready: the download says so rather than sending a partial file.
    response = manager.get(f"/releases/{release.pk}/download/json/")
    assert response.status_code == 409 and "running" in response.content.decode()


def test_the_best_tps_is_marked_in_the_comparison(corpus, people, documents):
    def finished(strategy, tps):
        return Release.objects.create(
            corpus=corpus,
            source="reviewed",
            strategy=strategy,
            status="succeeded",
            metrics={
                "TPS": tps,
                "ER_di": 1.0,
                "ER_qi": 0.9,
                "paths": {"first": 1, "later": 2, "fallback": 3, "fixed": 0},
            },
        )

    low, high = finished("suppress", 0.777), finished("intact", 0.885)
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert f'<tr id="release-row-{high.pk}" class="best-tps">' in page
    assert f'<tr id="release-row-{low.pk}">' in page
    assert page.count("★ best") == 1 and "0.885" in page and "0.777" in page


def test_a_refused_source_is_named_next_to_its_field(corpus, people, documents, django_capture_on_commit_callbacks):
    manager = client_for(people["manager"])
    # The corpus was never pre-annotated: the service refuses, naming the source.
    response = start(manager, corpus, django_capture_on_commit_callbacks, source="preannotation", strategy="rules")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="release-source-error"' in page and "never pre-annotated" in page
    # An annotator's release without an annotator.
    response = start(manager, corpus, django_capture_on_commit_callbacks, source="annotator", strategy="rules")
    page = response.content.decode()
    assert response.status_code == 400 and 'id="release-annotator-error"' in page
    assert "needs an annotator" in page
    # A strategy that does not exist is the form's own refusal.
    response = start(manager, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy="oracle")
    assert response.status_code == 400 and 'id="release-strategy-error"' in response.content.decode()
    # An annotator without a finished layer is not offered.
    response = start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="annotator",
        annotator="ann_annotator",
        strategy="rules",
    )
    assert response.status_code == 400 and 'id="release-annotator-error"' in response.content.decode()
    assert not Release.objects.exists()


def test_an_annotators_release_uses_that_annotators_layer(
    corpus, people, documents, source, django_capture_on_commit_callbacks
):
    manager = client_for(people["manager"])
    response = start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="annotator",
        annotator="annotator1",
        strategy="label",
    )
    release = Release.objects.get()
    assert response["Location"] == f"/releases/{release.pk}/"
    assert release.annotator.username == "annotator1"
    masked = {
        (m["start_offset"], m["end_offset"])
        for m in source["annotations"]["annotator1"]["entity_mentions"]
        if m["identifier_type"] in ("DIRECT", "QUASI")
    }  # from the source file
    released = {(span["start"], span["end"]) for span in release.documents.get().spans}
    assert released <= masked and len(released) > 0


# -- one document, side by side --------------------------------------------------------


def test_the_side_by_side_view_highlights_each_replacement_at_its_offsets(corpus, people, documents, source, release):
    item = release.documents.get()
    page = client_for(people["manager"]).get(f"/releases/{release.pk}/documents/{documents.pk}/").content.decode()
    columns = columns_of(page)
    # The left column is the original text, from the source file, character for character.
    assert columns.text["original-text"] == source["text"]
    assert columns.text["sanitized-text"] == item.sanitized_text
    original, sanitized = columns.marks["original-text"], columns.marks["sanitized-text"]
    assert len(original) == len(sanitized) == len(item.spans) > 0
    for (start, end, shown), (s_start, s_end, replacement) in zip(original, sanitized, strict=True):
        assert source["text"][start:end] == shown
        assert item.sanitized_text[s_start:s_end] == replacement
    # The applicant's application number, where annotator1 marked it, becomes a CODE placeholder.
    number = next(m for m in source["annotations"]["annotator1"]["entity_mentions"] if m["span_text"] == "63354/00")
    index = next(i for i, mark in enumerate(original) if mark[:2] == (number["start_offset"], number["end_offset"]))
    assert original[index][2] == "63354/00" and sanitized[index][2].startswith("CODE_")
    # Every replacement opens a popover that exists.
    assert columns.targets and set(columns.targets) <= columns.popovers


@pytest.mark.parametrize("strategy", ["suppress", "stars"])
def test_removed_and_starred_spans_keep_both_columns_true_to_their_texts(
    corpus, people, documents, source, strategy, django_capture_on_commit_callbacks
):
    manager = client_for(people["manager"])
    start(manager, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy=strategy)
    release = Release.objects.get()
    item = release.documents.get()
    page = manager.get(f"/releases/{release.pk}/documents/{documents.pk}/").content.decode()
    columns = columns_of(page)
    assert columns.text["original-text"] == source["text"]
    assert columns.text["sanitized-text"] == item.sanitized_text
    sanitized = columns.marks["sanitized-text"]
    assert len(sanitized) == len(item.spans) > 0
    if strategy == "suppress":
        # Nothing is left of a suppressed span: an empty mark stands where it was.
        assert all(s_start == s_end and text == "" for s_start, s_end, text in sanitized)
        assert page.count("rep-empty") == len(sanitized)
    else:
        # One star per character of each mention, at the mention's own offsets.
        for (o_start, o_end, shown), (s_start, s_end, stars) in zip(
            columns.marks["original-text"], sanitized, strict=True
        ):
            assert (s_start, s_end) == (o_start, o_end) and stars == "*" * len(shown)


def test_a_failed_release_shows_its_error_and_offers_no_file(corpus, people, documents):
    release = Release.objects.create(
        corpus=corpus,
        source="reviewed",
        strategy="rules",
        status="failed",
        documents_total=1,
        error="No document could be sanitized.",
    )
    ReleaseDocument.objects.create(
        release=release, document=documents, status="failed", error="ValueError: document 001-79436: bad span"
    )
    manager = client_for(people["manager"])
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert "No document could be sanitized." in page and "The release failed: it has no files." in page
    assert "<strong>001-79436</strong>: ValueError: document 001-79436: bad span" in page
    assert "/download/" not in page and "hx-trigger" not in page
    assert manager.get(f"/releases/{release.pk}/download/zip/").status_code == 409


def test_the_popover_lists_the_candidates_tried_with_the_guesses(corpus, people, documents, release):
    item = release.documents.get()
    decision = item.decisions.first()
    decision.candidates = ["a city in Turkey", "Turkey", "Western Asia"]
    decision.trials = [
        {
            "candidate": "a city in Turkey",
            "guesses": ["Ankara", "Istanbul"],
            "matched": "Ankara",
            "reason": "guess 'Ankara' recovers the original: exact string",
        },
        {"candidate": "Turkey", "guesses": ["Greece"], "matched": "", "reason": "no guess matches"},
    ]
    decision.replacement, decision.path = "Turkey", "later"
    decision.save()
    page = client_for(people["manager"]).get(f"/releases/{release.pk}/documents/{documents.pk}/").content.decode()
    start = page.index(f'<div popover id="decision-{decision.pk}"')
    popover = page[start : page.index("</ol>", start)]
    assert "A later candidate" in popover
    assert "guessed: guess &#x27;Ankara&#x27; recovers the original: exact string" in popover
    # The guess that matched is marked among the attacker's guesses.
    assert '<q class="matched-guess" title="matches the original">Ankara</q>, <q>Istanbul</q>' in popover
    assert "<q>Greece</q>" in popover and "no guess matches" in popover
    trail = popover[popover.index("<ol") :]
    assert trail.index(">a city in Turkey<") < trail.index(">Turkey<") < trail.index(">Western Asia<")
    assert trail.count("not tried") == 1
    assert popover.count('<span class="badge badge-kept">kept</span>') == 1


def test_spans_that_do_not_fit_the_document_are_named_instead_of_shown(corpus, people, documents, release):
    item = release.documents.get()
    ReleaseDocument.objects.filter(pk=item.pk).update(sanitized_text=item.sanitized_text + " tampered")
    page = client_for(people["manager"]).get(f"/releases/{release.pk}/documents/{documents.pk}/").content.decode()
    assert 'id="release-layout-error"' in page and f"Document {CANPOLAT}" in page
    assert 'id="original-text"' not in page


def test_a_document_outside_the_release_is_not_found(corpus, people, documents, release, pick, import_documents):
    other = pick("001-83927")[0]
    import_documents(corpus, [other])
    outside = corpus.documents.get(doc_id="001-83927")
    manager = client_for(people["manager"])
    assert manager.get(f"/releases/{release.pk}/documents/{outside.pk}/").status_code == 404


# -- downloads -------------------------------------------------------------------------


def test_each_release_file_downloads_as_an_attachment_of_its_type(corpus, people, documents, release):
    manager = client_for(people["manager"])
    expected = {
        "json": ("application/json", f"release-{release.pk}-placeholder.json"),
        "zip": ("application/zip", f"release-{release.pk}-placeholder.zip"),
        "masks": ("application/json", f"release-{release.pk}-placeholder-masks.json"),
        "tri": ("application/json", f"release-{release.pk}-placeholder-tri.json"),
    }
    item = release.documents.get()
    for fmt, (content_type, filename) in expected.items():
        response = manager.get(f"/releases/{release.pk}/download/{fmt}/")
        assert response.status_code == 200, fmt
        assert response["Content-Type"] == content_type
        assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
        if fmt == "json":
            (row,) = json.loads(response.content)
            assert row["doc_id"] == CANPOLAT and row["text"] == item.sanitized_text
        if fmt == "zip":
            assert f"{CANPOLAT}.txt" in zipfile.ZipFile(BytesIO(response.content)).namelist()
    assert manager.get(f"/releases/{release.pk}/download/docx/").status_code == 404


def test_recorded_engine_settings_read_strategy_first_and_nested_values_by_name():
    from frontend.release_views import _ordered_settings

    # As PostgreSQL's jsonb hands them back: shorter keys first, whatever was written.
    recorded = {
        "ic": "corpus unigram statistics",
        "llm": "m at http://x/v1",
        "source": "reviewed",
        "strategy": "intact",
        "llm_limits": {"retries": 2, "timeout_s": 60, "concurrency": 2},
        "custom_note": "kept",
    }
    assert _ordered_settings(recorded) == [
        ("strategy", "intact"),
        ("source", "reviewed"),
        ("llm", "m at http://x/v1"),
        ("llm limits", "concurrency = 2 · retries = 2 · timeout_s = 60"),
        ("ic", "corpus unigram statistics"),
        ("custom note", "kept"),
    ]
