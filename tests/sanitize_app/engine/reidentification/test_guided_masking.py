"""Attack-guided masking on the five-person fixture (tests/support/five_people.py), with
the real tfidf-svc attacker trained on the five background texts.

Expected values come from the fixture's construction (who is re-identified, which words
are each person's) and from re-scoring the released text from scratch (the whole text
pretreated again), never from the masking's own bookkeeping."""

import re

import numpy as np
import pytest

from sanitize_app.engine.reidentification.attackers import build_attacker
from sanitize_app.engine.reidentification.guided_masking import guided_masking, spacy_entities, suggest
from sanitize_app.engine.reidentification.guided_steps import MASKED
from sanitize_app.engine.reidentification.pretreatment import Pretreatment
from sanitize_app.engine.reidentification.types import BackgroundText
from sanitize_app.engine.release.engine import ReleaseEngine
from sanitize_app.engine.release.rendering import Replacement, render
from sanitize_app.engine.release.types import Mention, ReleaseEntity, ReleaseInput, SanitizedDocument
from tests.support.five_people import BACKGROUND, EXPECTED_RE_IDENTIFIED, MASKABLE, PROTECTED

BY_ID = {row["doc_id"]: row for row in PROTECTED}
REASON = re.compile(r"because it re-identified (.+) \(rank (\d+) → (\d+)\)")


@pytest.fixture(scope="module")
def pretreatment():
    return Pretreatment()


@pytest.fixture(scope="module")
def background(pretreatment):
    read = pretreatment.background([row["text"] for row in BACKGROUND])
    return [BackgroundText(row["name"], tuple(w), tuple(a)) for row, (w, a) in zip(BACKGROUND, read, strict=True)]


@pytest.fixture(scope="module")
def attacker(background):
    model = build_attacker("tfidf-svc")
    model.fit(background)
    return model


def rescored_rank(attacker, pretreatment, text: str, person: str) -> int:
    """The person's rank for ``text`` read from scratch (1 + people scored higher)."""
    scores = attacker.scores([pretreatment.words(text)])[0]
    mine = scores[attacker.people.index(person)]
    return 1 + int(np.sum(scores > mine))


def unmasked(doc_id: str, entities=()) -> tuple[ReleaseInput, SanitizedDocument]:
    """The protected text as a document to release, and its release by the label strategy."""
    row = BY_ID[doc_id]
    document = ReleaseInput(doc_id, row["text"], list(entities))
    return document, ReleaseEngine("label").sanitize(document)


def masked_guided(doc_id, attacker, pretreatment, *, top_k, entities=(), candidates=None):
    """Guided masking of a protected text released by labels (no candidate source unless
    given: added masks get the numbered type, and the place gazetteer is not loaded)."""
    document, sanitized = unmasked(doc_id, entities)
    result = guided_masking(
        document,
        sanitized,
        BY_ID[doc_id]["person"],
        attacker,
        pretreatment,
        top_k=top_k,
        candidates=candidates,
        entities=spacy_entities(pretreatment.nlp),
    )
    return document, sanitized, result


class LadderFor:
    """A candidate source with a fixed ladder for one unit's text (none for others)."""

    name = "test-ladder"

    def __init__(self, unit: str, ladder: list[str]):
        self.unit, self.ladder = unit, ladder

    def candidates(self, entity, text):
        return list(self.ladder) if entity.original.lower() == self.unit.lower() else []


@pytest.mark.parametrize("top_k", [1, 2])
def test_every_re_identified_person_ends_outside_the_top_k_when_the_text_is_read_again(attacker, pretreatment, top_k):
    for doc_id in sorted(EXPECTED_RE_IDENTIFIED):
        person = BY_ID[doc_id]["person"]
        assert rescored_rank(attacker, pretreatment, BY_ID[doc_id]["text"], person) <= top_k
        _, _, result = masked_guided(doc_id, attacker, pretreatment, top_k=top_k)
        rank = rescored_rank(attacker, pretreatment, result.document.text, person)
        assert rank > top_k, (doc_id, result.document.text, rank)
        assert result.final_rank == rank


def test_masked_words_are_maskable_or_words_of_the_persons_own_background(attacker, pretreatment, background):
    """The fixture lists the distinctive words; the attacker may also find other words
    the person's background shares (Ada "rowed", her background "rows"): nothing else."""
    words_of = {text.person: set(text.words) for text in background}
    for doc_id in sorted(EXPECTED_RE_IDENTIFIED):
        person = BY_ID[doc_id]["person"]
        maskable = {word.lower() for word in MASKABLE[doc_id]}
        _, _, result = masked_guided(doc_id, attacker, pretreatment, top_k=1)
        assert result.steps
        for step in result.steps:
            inside = any(word in step.unit.lower() for word in maskable)
            assert inside or step.word in words_of[person], (doc_id, step.unit, step.word)


def test_every_distinctive_word_of_a_re_identified_text_is_masked_at_k_2(attacker, pretreatment):
    """Ada, Bruno and Chidi keep only their own words: each of them must go."""
    for doc_id in ("doc-ada", "doc-bruno", "doc-chidi"):
        _, _, result = masked_guided(doc_id, attacker, pretreatment, top_k=2)
        for word in MASKABLE[doc_id]:
            assert word.lower() not in result.document.text.lower(), (doc_id, word, result.document.text)


def test_existing_masks_are_kept_with_their_offsets_and_replacements(attacker, pretreatment):
    text = BY_ID["doc-emil"]["text"]
    start = text.index("Marrowby")
    marrowby = ReleaseEntity("e1", "LOC", "QUASI", [Mention(start, start + len("Marrowby"), "Marrowby")])
    start = text.index("beekeeper")
    beekeeper = ReleaseEntity("e2", "MISC", "QUASI", [Mention(start, start + len("beekeeper"), "beekeeper")])
    _, sanitized, result = masked_guided("doc-emil", attacker, pretreatment, top_k=1, entities=[marrowby, beekeeper])
    released = {(span.start, span.end): span.replacement for span in result.document.spans}
    for span in sanitized.spans:
        # "[LOC]" can only move to MASKED, never back to the original nor disappear.
        assert released[(span.start, span.end)] in (span.replacement, MASKED)
    added = [span for span in result.document.spans if span.entity_key.startswith("attack-")]
    assert added
    for span in added:
        assert all(span.end <= old.start or old.end <= span.start for old in sanitized.spans)
    assert "Marrowby" not in result.document.text and "beekeeper" not in result.document.text


def test_each_reason_names_the_ranks_that_re_scoring_finds_before_and_after_its_step(attacker, pretreatment):
    """The steps replayed one by one on the original text, each state read from scratch:
    the ranks must be those its decision's reason states ("; then " joins the steps of
    one entity, e.g. added, then raised)."""
    document, _, result = masked_guided("doc-bruno", attacker, pretreatment, top_k=2)
    person = BY_ID["doc-bruno"]["person"]
    reasons = {d.entity.key: d.reason.split("; then ") for d in result.document.decisions if d.path == "attack"}
    assert len(result.steps) >= 2
    current: dict[str, tuple] = {}
    for step in result.steps:
        text_before = render(document.text, _replacements(current))
        current[step.entity_key] = (step.mentions, step.replacement)
        text_after = render(document.text, _replacements(current))
        reason = reasons[step.entity_key].pop(0)
        found = REASON.search(reason)
        assert found and found.group(1) == person, reason
        assert reason.startswith("added because" if step.kind == "added" else "raised to")
        assert int(found.group(2)) == rescored_rank(attacker, pretreatment, text_before, person), reason
        assert int(found.group(3)) == rescored_rank(attacker, pretreatment, text_after, person), reason
    assert all(not left for left in reasons.values())
    assert text_after == result.document.text


def _replacements(current: dict[str, tuple]) -> list[Replacement]:
    return sorted(
        (Replacement(s, e, replacement, key) for key, (places, replacement) in current.items() for s, e in places),
        key=lambda r: r.start,
    )


def test_a_generalization_that_still_points_at_the_person_is_refused_for_the_next_rung(attacker, pretreatment):
    """ "the glassblowing harbour town" repeats Ada's own words; "a place" says nothing of her."""
    ladder = LadderFor("Harrowgate", ["the glassblowing harbour town", "a place"])
    _, _, result = masked_guided("doc-ada", attacker, pretreatment, top_k=1, candidates=ladder)
    step = next(step for step in result.steps if step.unit == "Harrowgate")
    assert [candidate for candidate, _ in step.refused] == ["the glassblowing harbour town"]
    assert step.refused[0][1] > 0
    assert step.replacement == "a place"
    assert "a place" in result.document.text and "glassblowing" not in result.document.text
    decision = next(d for d in result.document.decisions if d.entity.original == "Harrowgate")
    assert [trial.candidate for trial in decision.trials] == ["the glassblowing harbour town", "a place"]
    assert decision.trials[0].matched == "Ada Quist" and not decision.trials[1].matched


def test_a_strategy_generalization_that_leaks_moves_one_rung_up_its_ladder(attacker, pretreatment):
    """The rules strategy wrote Bruno's village as "the cheese village in the mountains",
    which the attacker reads as Bruno: it becomes the next rung, "a place"."""
    text = BY_ID["doc-bruno"]["text"]
    start = text.index("Lindenfels")
    village = ReleaseEntity("e1", "LOC", "QUASI", [Mention(start, start + len("Lindenfels"), "Lindenfels")])
    ladder = LadderFor("Lindenfels", ["the cheese village in the mountains", "a place"])
    document = ReleaseInput("doc-bruno", text, [village])
    sanitized = ReleaseEngine("rules", rules=ladder).sanitize(document)
    assert "the cheese village in the mountains" in sanitized.text
    result = guided_masking(
        document, sanitized, "Bruno Velt", attacker, pretreatment, top_k=1, candidates=ladder,
        entities=spacy_entities(pretreatment.nlp),
    )  # fmt: skip
    raised = [step for step in result.steps if step.kind == "raised"]
    assert [(step.entity_key, step.replacement) for step in raised] == [("e1", "a place")]
    span = next(span for span in result.document.spans if span.entity_key == "e1")
    assert (span.start, span.end, span.replacement) == (start, start + len("Lindenfels"), "a place")
    decision = next(d for d in result.document.decisions if d.entity.key == "e1")
    assert decision.path == "attack"
    assert "then raised to 'a place' because it re-identified Bruno Velt (rank" in decision.reason


def test_every_occurrence_of_a_unit_becomes_one_entity(attacker, pretreatment):
    text = "The applicant kept bees near Marrowby and sold honey; the marrowby bakeries bought it."
    document = ReleaseInput("doc-chidi-2", text, [])
    sanitized = SanitizedDocument("doc-chidi-2", text, [], [])
    result = guided_masking(
        document, sanitized, "Chidi Okafor", attacker, pretreatment, top_k=1, entities=spacy_entities(pretreatment.nlp)
    )
    step = next(step for step in result.steps if step.unit.lower() == "marrowby")
    assert [text[s:e] for s, e in step.mentions] == ["Marrowby", "marrowby"]
    assert "arrowby" not in result.document.text


def test_a_person_outside_the_top_k_is_left_as_released(attacker, pretreatment):
    document, sanitized, result = masked_guided("doc-dora", attacker, pretreatment, top_k=1)
    assert result.steps == [] and result.initial_rank == result.final_rank > 1
    assert result.document.text == sanitized.text == document.text


def test_suggest_lists_the_masks_in_order_with_offsets_into_the_text(attacker, pretreatment):
    text = BY_ID["doc-chidi"]["text"]
    start = text.index("honey")
    result = suggest(
        text, [(start, start + len("honey"), "[MISC]")], "Chidi Okafor", attacker, pretreatment, top_k=1,
        entities=spacy_entities(pretreatment.nlp),
    )  # fmt: skip
    assert result.document is None
    assert result.initial_rank == 1 < result.final_rank
    assert result.steps[0].rank_before == 1 and result.steps[-1].rank_after == result.final_rank
    for step in result.steps:
        assert step.kind == "added"
        assert all(text[s:e].lower() == step.unit.lower() for s, e in step.mentions)
        assert all(e <= start or start + len("honey") <= s for s, e in step.mentions)  # not the mask given
    units = {step.unit.lower() for step in result.steps}
    assert {"orchard", "beekeeper"} <= units and "honey" not in units


def test_a_person_the_background_does_not_know_is_refused_by_name(attacker, pretreatment):
    document, sanitized = unmasked("doc-ada")
    with pytest.raises(ValueError, match="'Zelda Moor' is not among the 5 people"):
        guided_masking(document, sanitized, "Zelda Moor", attacker, pretreatment, top_k=1)


def test_the_ranks_are_read_from_the_whole_released_text_with_each_word_traced(attacker, pretreatment):
    """A replacement's lemma depends on its sentence ("the 1990s" alone reads "1990s", in
    this sentence "1990"): the masking ranks what the attacker will read, the text rendered
    and pretreated whole, and still knows where each word came from."""
    from sanitize_app.engine.reidentification.guided_steps import MaskedDocument, Setup, Span
    from sanitize_app.engine.reidentification.types import Token

    text = "Ada Quist blew glass in Harrowgate from 1994 until she rowed away."
    year = text.index("1994")
    setup = Setup("Ada Quist", attacker, pretreatment, None, None)
    masking = MaskedDocument(text, [Span(year, year + 4, "the 1990s", "d1", "DATETIME", "QUASI", "")], {}, setup)
    words, origins = masking.read_whole()
    rendered = text[:year] + "the 1990s" + text[year + 4 :]
    assert words == pretreatment.words(rendered)
    assert pretreatment.words("the 1990s") == ["1990s"] and "1990" in words  # spliced, it would differ
    assert [word for word, origin in zip(words, origins, strict=True) if origin == "d1"] == ["1990"]
    town = origins[words.index("harrowgate")]
    rowed = origins[words.index("row")]
    # Words of the original point at their place in the original, before and after the span.
    assert isinstance(town, Token) and text[town.start : town.end] == "Harrowgate"
    assert isinstance(rowed, Token) and text[rowed.start : rowed.end] == "rowed"


def test_a_word_across_a_replacements_edge_belongs_to_the_replacement(attacker, pretreatment):
    """spaCy reads "www.ORGANISATION_1.org/ada" as one token: it is the span's word (the
    span may be raised), never original text to mask again over the span."""
    from sanitize_app.engine.reidentification.guided_steps import MaskedDocument, Setup, Span, Token

    text = "See www.quist.org/ada now and later."
    start = text.index("quist")
    setup = Setup("Ada Quist", attacker, pretreatment, None, None)
    span = Span(start, start + 5, "ORGANISATION_1", "o1", "ORG", "QUASI", "")
    words, origins = MaskedDocument(text, [span], {}, setup).read_whole()
    assert words == pretreatment.words("See www.ORGANISATION_1.org/ada now and later.")
    glued = [origin for word, origin in zip(words, origins, strict=True) if "org" in word and "ada" in word]
    assert glued == ["o1"]
    # The other words still point at the original text they were read from.
    for origin in origins:
        if isinstance(origin, Token):
            assert text[origin.start : origin.end].lower().startswith(origin.lemma[:3])


def test_a_new_units_placeholder_never_takes_a_number_an_existing_ladder_holds(attacker, pretreatment):
    """An entity shown as "a village" may be raised to LOC_1: a unit added meanwhile is LOC_2."""
    from sanitize_app.engine.reidentification.guided_steps import Ladder, MaskedDocument, Setup, Span

    text = "Ada Quist lived in Harrowgate near Marrowby."
    town = text.index("Harrowgate")
    spans = [Span(town, town + 10, "a village", "e1", "LOC", "QUASI", "")]
    ladders = {"e1": Ladder(["a village", "LOC_1", MASKED], 0)}
    masking = MaskedDocument(text, spans, ladders, Setup("Ada Quist", attacker, pretreatment, None, None))
    assert masking.numbers == {"LOC": 1}


def test_a_top_k_as_large_as_the_background_is_refused_naming_its_size(attacker, pretreatment):
    with pytest.raises(ValueError, match="below the 5 people"):
        masked_guided("doc-ada", attacker, pretreatment, top_k=5)
