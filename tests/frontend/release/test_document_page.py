"""One released document side by side with its original: each replacement at its
offsets in both columns, its popover of candidates and guesses, and what cannot be
shown named instead."""

from html.parser import HTMLParser

import pytest

from annotation.models import Release, ReleaseDocument
from tests.frontend.conftest import client_for

from .conftest import CANPOLAT, post_start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


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
    post_start(manager, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy=strategy)
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
