"""The INTACT selection loop with a scripted attacker."""

from sanitize_app.engine.release.placeholders import PlaceholderNumbering
from sanitize_app.engine.release.selection import select_by_attack
from sanitize_app.engine.release.types import AttackOutcome, Mention, ReleaseEntity, ReleaseInput

TEXT = "Mr Polat was born in Edirne on 6 February 1993 and moved to Ankara."


class ScriptedAttacker:
    """Guesses from a script: candidate -> five guesses; a guess equal to the original
    (lower-cased) inverts the candidate. Records every document it was shown."""

    name = "scripted"

    def __init__(self, script: dict[str, list[str]]):
        self.script = script
        self.seen: list[str] = []

    def attack(self, query):
        self.seen.append(query.marked_text)
        guesses = self.script.get(query.candidate, ["somewhere", "someone", "sometime", "nothing", "nobody"])
        matched = next((g for g in guesses if g.lower() == query.original.lower()), "")
        return AttackOutcome(guesses, matched, "exact" if matched else "no guess matched")


def entity(key, text, entity_type):
    start = TEXT.index(text)
    return ReleaseEntity(key, entity_type, "QUASI", [Mention(start, start + len(text), text)])


def document():
    return ReleaseInput(
        "doc",
        TEXT,
        [
            entity("name", "Mr Polat", "PERSON"),
            entity("town", "Edirne", "LOC"),
            entity("date", "6 February 1993", "DATETIME"),
            entity("city", "Ankara", "LOC"),
        ],
    )


def candidates():
    return {
        "name": ("placeholder", ["PERSON_1"]),
        "town": ("rules", ["a city in Turkey", "Turkey", "Western Asia"]),
        "date": ("rules", ["February 1993", "winter 1993", "1993"]),
        "city": ("rules", ["the capital of Turkey", "a city in Turkey"]),
    }


def run(script):
    doc = document()
    attacker = ScriptedAttacker(script)
    decisions = select_by_attack(doc, candidates(), attacker, PlaceholderNumbering(doc.entities))
    return {d.entity.key: d for d in decisions}, attacker


def test_first_candidate_kept_when_no_guess_matches():
    decisions, _ = run({})
    town = decisions["town"]
    assert (town.replacement, town.path) == ("a city in Turkey", "first")
    assert town.trials[0].guesses == ["somewhere", "someone", "sometime", "nothing", "nobody"]
    assert town.reason == "scripted: no guess matched"


def test_later_candidate_kept_after_the_first_is_inverted():
    decisions, _ = run({"a city in Turkey": ["Istanbul", "Edirne", "Izmir", "Bursa", "Ankara"]})
    town = decisions["town"]
    assert (town.replacement, town.path) == ("Turkey", "later")
    assert [t.candidate for t in town.trials] == ["a city in Turkey", "Turkey"]
    assert town.trials[0].matched == "Edirne"
    assert town.trials[1].matched == ""


def test_fallback_to_the_numbered_label_when_every_candidate_is_inverted():
    decisions, _ = run({"the capital of Turkey": ["Ankara"], "a city in Turkey": ["ankara"]})
    city = decisions["city"]
    # The second LOC of the document: its numbered label is LOC_2.
    assert (city.replacement, city.path) == ("LOC_2", "fallback")
    assert len(city.trials) == 2
    assert "inverted all 2 candidates" in city.reason


def test_an_entity_without_candidates_falls_back_without_an_attack():
    doc = document()
    attacker = ScriptedAttacker({})
    options = candidates()
    options["date"] = ("rules", [])
    decisions = select_by_attack(doc, options, attacker, PlaceholderNumbering(doc.entities))
    date = next(d for d in decisions if d.entity.key == "date")
    assert (date.replacement, date.path, date.trials) == ("DATETIME_1", "fallback", [])


def test_placeholders_are_not_attacked():
    decisions, attacker = run({})
    assert (decisions["name"].replacement, decisions["name"].path) == ("PERSON_1", "first")
    # town, date and city were attacked once each; the name never.
    assert len(attacker.seen) == 3


def test_the_attacker_reads_the_whole_current_document_with_the_candidate_marked():
    _, attacker = run({"a city in Turkey": ["Edirne"]})
    # Every entity starts at its most specific candidate; earlier decisions are applied.
    assert attacker.seen[0] == (
        "PERSON_1 was born in [[a city in Turkey]] on February 1993 and moved to the capital of Turkey."
    )
    assert attacker.seen[1] == "PERSON_1 was born in [[Turkey]] on February 1993 and moved to the capital of Turkey."
    assert attacker.seen[2] == "PERSON_1 was born in Turkey on [[February 1993]] and moved to the capital of Turkey."
    assert all("Edirne" not in seen and "Polat" not in seen for seen in attacker.seen)
