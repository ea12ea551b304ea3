"""LLM candidates: the prompt the server receives, and what becomes of its answers."""

import pytest

from sanitize_app.engine.release.llm import LLMClient, LLMConfig
from sanitize_app.engine.release.llm_candidates import EXAMPLES, LLMCandidates, marked_sentence, sentence_around
from sanitize_app.engine.release.types import ENTITY_TYPES, Mention, ReleaseEntity
from tests.support.openai_server import Reply, ScriptedOpenAIServer


@pytest.fixture
def server():
    with ScriptedOpenAIServer() as running:
        yield running


def source_for(server, **overrides) -> LLMCandidates:
    settings = dict(base_url=server.base_url, model="scripted", retries=0, timeout_s=5)
    settings.update(overrides)
    return LLMCandidates(LLMClient(LLMConfig(**settings)))


def entity_of(first_document, key: str) -> ReleaseEntity:
    return next(e for e in first_document.entities if e.key == key)


def test_the_prompt_marks_the_span_in_its_sentence_and_shows_an_example_of_its_type(server, first_document):
    prison = entity_of(first_document, "001-83927_a1_e11")  # ORG "Edirne F-type Prison"
    source_for(server).candidates(prison, first_document.text)
    [request] = server.requests
    system, example_question, example_answer, question = request["messages"]
    assert system["role"] == "system"
    assert question["role"] == "user"
    assert "Sentence: He is currently detained in the [[Edirne F-type Prison]].\n" in question["content"]
    assert "Type: ORG" in question["content"]
    # The one-shot example is the ORG one: a question of the same form and its answer.
    assert example_question["role"] == "user" and example_answer["role"] == "assistant"
    assert "[[Ankara State Security Court]]" in example_question["content"]
    assert "Type: ORG" in example_question["content"]
    assert example_answer["content"].splitlines()[-1] == "a court"


def test_the_scripted_answer_becomes_five_candidates_from_specific_to_general(server, first_document):
    prison = entity_of(first_document, "001-83927_a1_e11")
    source = source_for(server)
    assert source.candidates(prison, first_document.text) == [
        "an organisation such as Edirne F-type Prison",
        "an organisation like Edirne",
        "a particular organisation",
        "an organisation",
        "something",
    ]
    assert source.last_failure == ""


@pytest.mark.parametrize("entity_type", ENTITY_TYPES)
def test_every_type_has_its_own_example_with_five_answers(server, entity_type):
    text = "In that year the applicant moved to Bursa."
    entity = ReleaseEntity("e1", entity_type, "QUASI", [Mention(36, 41, "Bursa")])
    source_for(server).candidates(entity, text)
    messages = server.requests[-1]["messages"]
    example_sentence, answers = EXAMPLES[entity_type]
    assert example_sentence in messages[1]["content"]
    assert f"Type: {entity_type}" in messages[1]["content"]
    assert messages[2]["content"].splitlines() == answers and len(answers) == 5
    assert "Sentence: In that year the applicant moved to [[Bursa]].\n" in messages[3]["content"]


def test_the_sentence_window_skips_the_abbreviations_of_legal_english(first_document):
    text = first_document.text
    lawyer = entity_of(first_document, "001-83927_a1_e6")  # "Mr E. Kanar" at 343
    assert marked_sentence(text, lawyer.first.start, lawyer.first.end) == (
        "The applicant was represented by [[Mr E. Kanar]], a lawyer practising in Istanbul."
    )
    number = entity_of(first_document, "001-83927_a1_e1")  # "40593/04" after "(no."
    start, end = sentence_around(text, number.first.start, number.first.end)
    # The heading "PROCEDURE" is a line of its own; the sentence runs to "15 October 2004."
    assert text[start:end].startswith("The case originated in an application (no. 40593/04)")
    assert text[start:end].endswith("on 15 October 2004.")


def test_a_long_run_on_sentence_is_cut_around_the_span():
    text = "x, " * 1000 + "Ankara" + " y," * 1000
    start, end = sentence_around(text, 3000, 3006)
    assert text[start:end].count("Ankara") == 1
    assert 3000 - start <= 600 and end - 3006 <= 600


def test_a_refusal_gives_no_candidate_and_says_why(server, first_document):
    server.responder = lambda messages: "I'm sorry, but I cannot help with anonymizing this."
    source = source_for(server)
    assert source.candidates(entity_of(first_document, "001-83927_a1_e11"), first_document.text) == []
    assert source.last_failure.startswith("refusal:")


def test_an_unparsable_answer_gives_no_candidate_and_says_why(server, first_document):
    server.responder = lambda messages: (
        "The marked span is the name of the prison where the applicant is held, so I would say it should "
        "simply be described in a way that keeps the meaning intact for readers."
    )
    source = source_for(server)
    result = source.generalize(entity_of(first_document, "001-83927_a1_e11"), first_document.text)
    assert result.candidates == [] and result.failure.startswith("unparsable answer")


def test_a_failed_call_gives_no_candidate_and_names_the_endpoint(server, first_document):
    server.script(Reply(status=500))
    source = source_for(server, retries=0)
    assert source.candidates(entity_of(first_document, "001-83927_a1_e11"), first_document.text) == []
    assert source.last_failure.startswith(f"LLM call failed: LLM endpoint {server.base_url}/chat/completions")
    assert "HTTP 500" in source.last_failure


def test_a_candidate_repeating_the_original_is_dropped_and_at_most_five_are_kept(server, first_document):
    server.responder = lambda messages: (
        "1. Edirne F-type prison\n2. a high-security prison in Edirne\n3. a prison in Edirne\n"
        "4. a high-security prison\n5. a prison\n6. a detention facility\n7. a building"
    )
    source = source_for(server)
    assert source.candidates(entity_of(first_document, "001-83927_a1_e11"), first_document.text) == [
        "a high-security prison in Edirne",
        "a prison in Edirne",
        "a high-security prison",
        "a prison",
        "a detention facility",
    ]


def test_an_answer_that_only_repeats_the_original_is_a_failure(server, first_document):
    server.responder = lambda messages: "Edirne F-type Prison"
    source = source_for(server)
    assert source.candidates(entity_of(first_document, "001-83927_a1_e11"), first_document.text) == []
    assert source.last_failure == "every generalization repeats the original"


def test_a_mention_outside_the_text_is_refused_naming_the_entity(server):
    entity = ReleaseEntity("e9", "LOC", "QUASI", [Mention(50, 56, "Ankara")])
    with pytest.raises(ValueError, match=r"entity e9: first mention \[50, 56\) is outside the text"):
        source_for(server).candidates(entity, "short text")
    assert server.requests == []
