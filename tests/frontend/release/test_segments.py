"""Laying a released document out side by side: the runs of both columns, each
replacement's offsets in the original and in the sanitized text, the decision it
belongs to; spans that do not fit are refused naming the document and the span; and a
decision's trail in the order the candidates were tried."""

from types import SimpleNamespace

import pytest

from frontend.release_segments import SpansDoNotFit, decision_trail, side_by_side

# Shortened from the first sentence of 001-79436: the application number and the applicant.
TEXT = "The case originated in an application (no. 63354/00) lodged by Mr Aziz Canpolat."
NUMBER = (43, 51)  # "63354/00"
NAME = (66, 79)  # "Aziz Canpolat"


def span(start, end, replacement, entity_type):
    return {
        "start": start,
        "end": end,
        "replacement": replacement,
        "entity_type": entity_type,
        "identifier_type": "DIRECT",
        "reason": "replaced by a numbered placeholder",
    }


SPANS = [span(*NAME, "PERSON_1", "PERSON"), span(*NUMBER, "CODE_1", "CODE")]  # not in text order
SANITIZED = "The case originated in an application (no. CODE_1) lodged by Mr PERSON_1."


def test_both_columns_are_cut_at_the_replacements_with_offsets_into_each_text():
    assert TEXT[slice(*NUMBER)] == "63354/00" and TEXT[slice(*NAME)] == "Aziz Canpolat"
    view = side_by_side(TEXT, SANITIZED, SPANS)
    assert [(run.text, run.replacement is not None) for run in view.original] == [
        ("The case originated in an application (no. ", False),
        ("63354/00", True),
        (") lodged by Mr ", False),
        ("Aziz Canpolat", True),
        (".", False),
    ]
    assert [run.text for run in view.sanitized] == [
        "The case originated in an application (no. ",
        "CODE_1",
        ") lodged by Mr ",
        "PERSON_1",
        ".",
    ]
    code, person = view.replacements
    assert (code.number, code.start, code.end, code.sanitized_start, code.sanitized_end) == (1, 43, 51, 43, 49)
    # "63354/00" (8 characters) became "CODE_1" (6): the name moves 2 to the left.
    assert (person.number, person.start, person.end, person.sanitized_start, person.sanitized_end) == (
        2,
        66,
        79,
        64,
        72,
    )
    assert SANITIZED[64:72] == "PERSON_1" and person.original == "Aziz Canpolat"


def test_a_suppressed_span_is_an_empty_run_in_the_sanitized_column():
    sanitized = "The case originated in an application (no. ) lodged by Mr Aziz Canpolat."
    view = side_by_side(TEXT, sanitized, [span(*NUMBER, "", "CODE")])
    (removed,) = view.replacements
    assert (removed.sanitized_start, removed.sanitized_end) == (43, 43)
    assert [run.text for run in view.sanitized] == [
        "The case originated in an application (no. ",
        "",
        ") lodged by Mr Aziz Canpolat.",
    ]


def test_each_span_is_tied_to_the_decision_of_its_mention_and_shares_its_popover():
    person = SimpleNamespace(pk=7, mentions=[[66, 79], [120, 133]])
    code = SimpleNamespace(pk=8, mentions=[[43, 51]])
    view = side_by_side(TEXT, SANITIZED, SPANS, [person, code])
    assert [r.decision for r in view.replacements] == [code, person]
    assert [r.popover_id for r in view.replacements] == ["decision-8", "decision-7"]
    assert view.orphans == []
    alone = side_by_side(TEXT, SANITIZED, SPANS, [code])
    assert [r.popover_id for r in alone.orphans] == ["replacement-2"]


@pytest.mark.parametrize(
    ("spans", "message"),
    [
        ([span(43, 51, "CODE_1", "CODE"), span(45, 60, "X", "MISC")], "the released span [45, 60] overlaps [43, 51]"),
        ([span(70, 90, "X", "MISC")], "the released span [70, 90] is not inside its text of 80 characters"),
        ([span(50, 50, "X", "MISC")], "the released span [50, 50] is not inside"),
    ],
)
def test_spans_that_cannot_be_laid_out_are_refused_naming_the_document_and_the_span(spans, message):
    assert len(TEXT) == 80
    with pytest.raises(SpansDoNotFit, match=r"Document 001-79436: " + message.replace("[", r"\[").replace("]", r"\]")):
        side_by_side(TEXT, SANITIZED, spans, doc_id="001-79436")


def test_spans_that_do_not_rebuild_the_stored_text_are_refused_with_where_they_differ():
    stored = SANITIZED.replace("PERSON_1", "PERSON_2")
    with pytest.raises(SpansDoNotFit, match=r"differ from character 71 of the sanitized text"):
        side_by_side(TEXT, stored, SPANS, doc_id="001-79436")


def decision(replacement, candidates, trials):
    return SimpleNamespace(replacement=replacement, candidates=candidates, trials=trials)


def test_the_trail_lists_tried_candidates_in_order_then_those_never_tried():
    trail = decision_trail(
        decision(
            "Turkey",
            ["a city in Turkey", "Turkey", "Western Asia", "Asia", "a place"],
            [
                {
                    "candidate": "a city in Turkey",
                    "guesses": ["Ankara", "Izmir"],
                    "matched": "Ankara",
                    "reason": "exact",
                },
                {"candidate": "Turkey", "guesses": ["Greece"], "matched": "", "reason": "no guess matches"},
            ],
        )
    )
    assert [(a.candidate, a.tried, a.kept) for a in trail] == [
        ("a city in Turkey", True, False),
        ("Turkey", True, True),
        ("Western Asia", False, False),
        ("Asia", False, False),
        ("a place", False, False),
    ]
    assert trail[0].guesses == ("Ankara", "Izmir") and trail[0].matched == "Ankara" and trail[0].reason == "exact"


def test_a_fallback_keeps_no_candidate_and_a_fixed_choice_keeps_the_first_untried():
    every_one_guessed = decision(
        "[LOC_1]",
        ["Ankara", "Turkey"],
        [
            {"candidate": "Ankara", "guesses": ["Ankara"], "matched": "Ankara", "reason": "exact"},
            {"candidate": "Turkey", "guesses": ["Turkey"], "matched": "Turkey", "reason": "exact"},
        ],
    )
    assert [a.kept for a in decision_trail(every_one_guessed)] == [False, False]
    rules = decision("June 1999", ["June 1999", "summer 1999", "1999"], [])
    assert [(a.candidate, a.tried, a.kept) for a in decision_trail(rules)] == [
        ("June 1999", False, True),
        ("summer 1999", False, False),
        ("1999", False, False),
    ]
