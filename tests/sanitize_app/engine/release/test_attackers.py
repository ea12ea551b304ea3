"""The attackers: the offline leak check, and the LLM attacker against a real HTTP server
speaking the OpenAI chat protocol (the scripted LLM of tests/support/openai_server.py)."""

import json

import pytest

from sanitize_app.engine.release.attackers import WINDOW_CHARS, LLMAttacker, OfflineAttacker, document_window
from sanitize_app.engine.release.llm import LLMClient, LLMConfig
from sanitize_app.engine.release.llm_candidates import LLMCandidates
from sanitize_app.engine.release.matching import Matcher
from sanitize_app.engine.release.placeholders import PlaceholderNumbering
from sanitize_app.engine.release.selection import select_by_attack
from sanitize_app.engine.release.types import PATH_LATER, AttackQuery, ReleaseInput, mark
from tests.support.openai_server import TYPE_NOUNS, Reply, ScriptedOpenAIServer, attack_reply

DOCUMENT = "The applicant, a journalist, was arrested in {} and taken to the police station."


def query(candidate: str, original: str, entity_type: str) -> AttackQuery:
    return AttackQuery(DOCUMENT.format(mark(candidate)), candidate, entity_type, original)


# -- offline ----------------------------------------------------------------------------
@pytest.fixture
def offline():
    return OfflineAttacker(Matcher())


def test_offline_refuses_a_candidate_repeating_a_content_word(offline):
    outcome = offline.attack(query("a city near Ankara", "Ankara", "LOC"))
    assert outcome.inverted
    assert outcome.guesses == ["Ankara"] and outcome.matched == "Ankara"
    assert outcome.reason == "refused: the candidate recovers the original (shared lemma 'ankara')"


def test_offline_refuses_a_candidate_repeating_a_number_even_written_in_words(offline):
    outcome = offline.attack(query("19 bullets", "shot nineteen times", "MISC"))
    assert outcome.inverted
    assert outcome.reason == "refused: the candidate repeats the number 19"


def test_offline_refuses_a_quantity_stating_the_original_amount(offline):
    outcome = offline.attack(query("about 19 people", "nineteen other defendants", "QUANTITY"))
    assert outcome.reason == "refused: the candidate recovers the original (same number 19)"


def test_offline_keeps_a_range_of_the_amount_that_names_the_thing_counted(offline):
    outcome = offline.attack(query("between 10 and 20 defendants", "nineteen other defendants", "QUANTITY"))
    assert not outcome.inverted
    assert outcome.reason == "kept: states none of the original's numbers"
    outcome = offline.attack(query("a few children", "three children", "DEM"))
    assert outcome.reason == "kept: states none of the original's numbers"


def test_offline_refuses_a_date_range_under_four_weeks(offline):
    outcome = offline.attack(query("first half of August 2003", "3 August 2003", "DATETIME"))
    assert outcome.inverted
    assert outcome.reason == "refused: the candidate spans 15 days (< 28)"


def test_offline_refuses_the_same_date_written_otherwise(offline):
    outcome = offline.attack(query("03/08/2003", "3 August 2003", "DATETIME"))
    assert outcome.reason == "refused: the candidate recovers the original (same date)"


def test_offline_keeps_a_month_of_the_date_even_though_it_shares_the_year(offline):
    outcome = offline.attack(query("August 2003", "3 August 2003", "DATETIME"))
    assert not outcome.inverted and outcome.guesses == []
    assert outcome.reason == "kept: range 31 days"


def test_the_date_threshold_is_a_setting():
    strict = OfflineAttacker(Matcher(), min_date_days=40)
    assert strict.attack(query("August 2003", "3 August 2003", "DATETIME")).reason == (
        "refused: the candidate spans 31 days (< 40)"
    )
    assert not strict.attack(query("summer 2003", "3 August 2003", "DATETIME")).inverted  # 92 days


def test_offline_refuses_a_place_set_smaller_than_k(offline):
    outcome = offline.attack(query("Turkey", "Ankara", "LOC"))
    assert outcome.inverted
    assert outcome.reason == "refused: the candidate covers 1 place (< 5)"
    assert not OfflineAttacker(Matcher(), min_place_set=1).attack(query("Turkey", "Ankara", "LOC")).inverted


def test_offline_keeps_a_place_set_of_k_or_more_and_says_how_many(offline):
    outcome = offline.attack(query("Western Asia", "Ankara", "LOC"))
    assert not outcome.inverted
    assert outcome.reason.startswith("kept: no content word or number of the original, ")
    count = int(outcome.reason.rsplit(", ", 1)[1].split()[0])
    assert count >= 5


def test_offline_keeps_a_place_whose_set_is_unknown_and_says_so(offline):
    outcome = offline.attack(query("the applicant's home region", "Ankara", "LOC"))
    assert not outcome.inverted
    assert outcome.reason == "kept: no content word or number of the original, place set unknown"


def test_offline_keeps_a_general_organisation(offline):
    outcome = offline.attack(query("a prison", "Edirne F-type Prison", "ORG"))
    assert outcome.inverted  # "prison" is a content word of the original
    outcome = offline.attack(query("a detention facility", "Edirne F-type Prison", "ORG"))
    assert not outcome.inverted
    assert outcome.reason == "kept: no content word or number of the original"


# -- LLM attacker -------------------------------------------------------------------------
@pytest.fixture
def server():
    with ScriptedOpenAIServer() as running:
        yield running


def attacker_for(server, **overrides) -> LLMAttacker:
    settings = dict(base_url=server.base_url, model="scripted", retries=0, timeout_s=5)
    settings.update(overrides)
    return LLMAttacker(LLMClient(LLMConfig(**settings)), Matcher())


def test_the_scripted_attack_guesses_from_the_candidates_own_words():
    assert attack_reply("a particular place") == "a particular place\nparticular place\nparticular\nplace\nunknown"


def test_a_guess_sharing_the_originals_word_inverts_the_candidate(server):
    outcome = attacker_for(server).attack(query("a place such as Ankara", "Ankara", "LOC"))
    assert outcome.inverted
    assert outcome.guesses == ["a place such as Ankara", "place such as Ankara", "place", "such", "Ankara"]
    assert outcome.matched == "a place such as Ankara"
    assert outcome.reason == "guess 'a place such as Ankara' recovers the original: shared lemma 'ankara'"


def test_a_general_candidate_survives_and_the_guesses_are_kept(server):
    outcome = attacker_for(server).attack(query("a particular place", "Ankara", "LOC"))
    assert not outcome.inverted
    assert outcome.guesses == ["a particular place", "particular place", "particular", "place", "unknown"]
    assert outcome.reason == "none of the 5 guesses recovers the original"


def test_the_attacker_sees_the_marked_document_and_never_the_original(server):
    attacker = attacker_for(server)
    assert attacker.name == "llm:scripted"
    attacker.attack(query("a particular place", "Ankara", "LOC"))
    [request] = server.requests
    prompt = request["messages"][-1]["content"]
    assert DOCUMENT.format("[[a particular place]]") in prompt
    assert "Type of the marked span: LOC" in prompt
    assert "Ankara" not in json.dumps(request)


def test_a_guess_of_the_same_date_inverts_a_date_candidate(server):
    server.responder = lambda messages: "1. 1 August 2003\n2. 03/08/2003\n3. 4 August 2003"
    outcome = attacker_for(server).attack(query("August 2003", "3 August 2003", "DATETIME"))
    assert outcome.matched == "03/08/2003"
    assert outcome.reason.endswith("same date")


def test_a_failed_attack_counts_as_inverted_so_a_more_general_candidate_is_tried(server):
    server.script(Reply(status=503))
    outcome = attacker_for(server, retries=0).attack(query("a particular place", "Ankara", "LOC"))
    assert outcome.inverted and outcome.guesses == []
    assert outcome.matched == "(attack failed: HTTP 503 (after 1 tries))"
    assert outcome.reason.startswith("attack failed, so the candidate counts as inverted: LLM endpoint ")


def test_a_refused_attack_counts_as_inverted(server):
    server.responder = lambda messages: "I'm sorry, but I can't help identify people."
    outcome = attacker_for(server).attack(query("a particular place", "Ankara", "LOC"))
    assert outcome.inverted
    assert outcome.matched.startswith("(attack failed: refusal:")


def test_a_long_document_is_sent_as_a_window_around_the_marked_candidate(server):
    before, after = "Earlier words here. " * 1000, " Later words there." * 1000
    marked = before + mark("a particular place") + after
    attacker_for(server).attack(AttackQuery(marked, "a particular place", "LOC", "Ankara"))
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "[[a particular place]]" in prompt
    assert "characters around the marked span):" in prompt
    assert len(prompt) < WINDOW_CHARS + 1000
    window, cut = document_window(marked)
    assert cut and window.startswith("… ") and window.endswith(" …")
    assert WINDOW_CHARS - 400 <= len(window) <= WINDOW_CHARS + 4  # cut at spaces, plus the two "… "
    assert window in prompt
    # Centred: about as much text on either side of the candidate.
    left, right = window.split("[[a particular place]]")
    assert abs(len(left) - len(right)) < 300


def test_a_short_document_is_sent_whole():
    window, cut = document_window("short [[x]] text")
    assert (window, cut) == ("short [[x]] text", False)


# -- end to end: the scripted LLM through the real selection ------------------------------
def test_intact_selection_with_the_scripted_llm_inverts_specific_candidates_and_keeps_a_general_one(
    server, first_document
):
    # Short originals (the scripted first candidate repeats the original, and a 100-character
    # name makes it a line of prose the list reader drops): Edirne F-type Prison (ORG),
    # "nineteen other defendants" and "life imprisonment" (QUANTITY).
    chosen = [
        e for e in first_document.entities if e.entity_type in ("ORG", "QUANTITY") and len(e.original.split()) <= 6
    ]
    assert sorted(e.original for e in chosen) == [
        "Edirne F-type Prison",
        "life imprisonment",
        "nineteen other defendants",
    ]
    document = ReleaseInput(first_document.doc_id, first_document.text, chosen)
    client = LLMClient(LLMConfig(server.base_url, "scripted", retries=0))
    source, attacker = LLMCandidates(client), LLMAttacker(client, Matcher())
    candidates = {e.key: (source.name, source.candidates(e, document.text)) for e in chosen}
    decisions = select_by_attack(document, candidates, attacker, PlaceholderNumbering(chosen))
    assert len(decisions) == 3
    for decision in decisions:
        original, noun = decision.entity.original, TYPE_NOUNS[decision.entity.entity_type]
        assert decision.candidate_source == "llm"
        assert decision.candidates[0] == f"{'an' if noun[0] in 'aeiou' else 'a'} {noun} such as {original}"
        assert [trial.candidate for trial in decision.trials] == decision.candidates[:3]
        assert [bool(trial.matched) for trial in decision.trials] == [True, True, False]
        assert decision.replacement == f"a particular {noun}"
        assert decision.path == PATH_LATER
        assert decision.reason == "llm:scripted: none of the 5 guesses recovers the original"
