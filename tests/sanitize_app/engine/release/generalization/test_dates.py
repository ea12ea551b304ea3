"""The DATETIME ladders on real mentions of the TAB dev sample: what each expression
denotes, the paper's ladders written out by hand, and the share of real mentions parsed."""

from datetime import date

import pytest

from sanitize_app.engine.release.generalization.dates import date_parse_share, datetime_candidates, parse_datetime


def _datetime_mentions(documents) -> list[str]:
    return [
        mention["span_text"]
        for document in documents
        for layer in document["annotations"].values()
        for mention in layer["entity_mentions"]
        if mention["entity_type"] == "DATETIME"
    ]


@pytest.mark.parametrize(
    ("text", "ladder"),
    [
        # day-month-year -> [Month YYYY, season YYYY, YYYY, part of decade, decade]
        ("29 September 2000", ["September 2000", "autumn 2000", "2000", "the early 2000s", "the 2000s"]),
        ("10 July 1996", ["July 1996", "summer 1996", "1996", "the mid 1990s", "the 1990s"]),
        # month-year -> [season YYYY, YYYY, part of decade, decade, part of century]
        ("August 1995", ["summer 1995", "1995", "the mid 1990s", "the 1990s", "the late 20th century"]),
        # year -> [part of decade, decade, part of century, century, a date in the past]
        ("1949", ["the late 1940s", "the 1940s", "the mid 20th century", "the 20th century", "a date in the past"]),
        # day-month -> [early/mid/late Month, half of Month, Month, season, unknown month]
        ("16 June", ["mid-June", "the second half of June", "June", "summer", "a day of an unknown month"]),
        (
            "30 January",
            ["late January", "the second half of January", "January", "winter", "a day of an unknown month"],
        ),
    ],
)
def test_the_papers_ladders_on_real_mentions(text, ladder):
    assert datetime_candidates(text) == ladder


def test_a_winter_is_named_by_both_of_its_years():
    assert datetime_candidates("3 December 1999")[1] == "winter 1999-2000"
    assert datetime_candidates("15 January 2003")[1] == "winter 2002-03"
    assert datetime_candidates("December 1981")[0] == "winter 1981-82"


@pytest.mark.parametrize(
    ("text", "first", "last", "granularity"),
    [
        ("8-10 July 1996", date(1996, 7, 8), date(1996, 7, 10), "range"),
        ("1 and 9 September 2009", date(2009, 9, 1), date(2009, 9, 9), "range"),
        ("20 July and 5 August 1998", date(1998, 7, 20), date(1998, 8, 5), "range"),
        ("between 1993 and 1995", date(1993, 1, 1), date(1995, 12, 31), "range"),
        ("from March to May 2001", date(2001, 3, 1), date(2001, 5, 31), "range"),
        ("years 2000-2001", date(2000, 1, 1), date(2001, 12, 31), "range"),
        ("Between 19 December 2001 and 3 February 2003", date(2001, 12, 19), date(2003, 2, 3), "range"),
        ("first half of 1993", date(1993, 1, 1), date(1993, 6, 30), "part"),
        ("beginning of January 1997", date(1997, 1, 1), date(1997, 1, 10), "part"),
        ("On 31 May 1999", date(1999, 5, 31), date(1999, 5, 31), "day"),
        ("1995", date(1995, 1, 1), date(1995, 12, 31), "year"),
        ("February 2000", date(2000, 2, 1), date(2000, 2, 29), "month"),
    ],
)
def test_what_a_dated_expression_denotes(text, first, last, granularity):
    parsed = parse_datetime(text)
    assert (parsed.first, parsed.last, parsed.granularity) == (first, last, granularity)


def test_the_same_day_written_five_ways_parses_to_the_same_span_and_a_month_does_not():
    spans = {
        (parse_datetime(text).first, parse_datetime(text).last)
        for text in ("3 August 2003", "03/08/2003", "3.8.2003", "3rd of August 2003", "August 3, 2003")
    }
    assert spans == {(date(2003, 8, 3), date(2003, 8, 3))}
    month = parse_datetime("August 2003")
    assert (month.first, month.last) == (date(2003, 8, 1), date(2003, 8, 31))


def test_numeric_dates_are_day_first_as_in_european_judgments():
    assert parse_datetime("04/06/1975").first == date(1975, 6, 4)
    assert parse_datetime("June 4, 1975").first == date(1975, 6, 4)  # US order in words
    assert parse_datetime("31/02/2001") is None  # no 31 February


def test_a_hedged_date_keeps_its_stated_day_but_its_ladder_allows_a_few_days_either_way():
    hedged = parse_datetime("around 4 April 2000")
    assert (hedged.first, hedged.last, hedged.hedged) == (date(2000, 4, 4), date(2000, 4, 4), True)
    assert datetime_candidates("around 4 April 2000")[0] == "April 2000"
    # 30 April give or take three days may be in May: April 2000 would not be truthful
    assert datetime_candidates("around 30 April 2000")[0] == "spring 2000"
    assert datetime_candidates("in or about 1995")[0] == "the mid 1990s"


def test_a_range_gets_the_ladder_of_the_smallest_units_holding_all_of_it():
    assert datetime_candidates("8-10 July 1996") == ["July 1996", "summer 1996", "1996", "the mid 1990s", "the 1990s"]
    assert datetime_candidates("20 July and 5 August 1998")[:2] == ["summer 1998", "1998"]
    assert datetime_candidates("1999-2000") == ["the late 1990s or the early 2000s", "a date in the past"]
    assert datetime_candidates("between 1993 and 1995")[:2] == ["the early or mid 1990s", "the 1990s"]


def test_a_time_of_day_is_generalized_to_its_day_first():
    assert parse_datetime("at 10.30 a.m. on 3 August 2003").granularity == "time"
    assert datetime_candidates("at 10.30 a.m. on 3 August 2003")[:2] == ["3 August 2003", "August 2003"]


@pytest.mark.parametrize(
    ("text", "ladder"),
    [
        ("six months", ["several months", "less than a year", "a period of months", "a period of time"]),
        ("three-month", ["a few months", "less than six months", "a period of months", "a period of time"]),
        (
            "two years and three months",
            ["more than two years", "a few years", "less than five years", "a period of years", "a period of time"],
        ),
        ("24 weeks", ["dozens of weeks", "less than six months", "a period of weeks", "a period of time"]),
        ("two years later", ["a few years later", "less than five years later", "some years later", "some time later"]),
        ("Several years later", ["some years later", "less than ten years later", "some time later"]),
        ("up to 6 months", ["less than six months", "a period of time"]),
        ("Day 12", ["between day 11 and day 20", "one of the first 50 days", "a day"]),
    ],
)
def test_durations_relative_times_and_schedule_steps_have_ladders_but_no_calendar_position(text, ladder):
    assert datetime_candidates(text) == ladder
    assert parse_datetime(text) is None


def test_an_age_annotated_as_a_date_gets_the_age_ladder():
    assert datetime_candidates("age of sixty") == ["between 60 and 69 years old", "in their sixties", "an adult"]


@pytest.mark.parametrize("text", ["Her Majesty’s Pleasure", "life imprisonment", "", "3 July 19950", "???"])
def test_what_is_not_a_date_gets_no_ladder_and_no_span(text):
    assert datetime_candidates(text) == []
    assert parse_datetime(text) is None


def test_a_non_string_is_a_programming_error():
    with pytest.raises(TypeError):
        datetime_candidates(None)


def test_the_rules_parse_at_least_95_percent_of_the_real_datetime_mentions(sample_documents):
    texts = _datetime_mentions(sample_documents)
    parsed, total = date_parse_share(texts)
    distinct_parsed, distinct_total = date_parse_share(set(texts))
    print(f"DATETIME mentions parsed: {parsed}/{total}; distinct texts: {distinct_parsed}/{distinct_total}")
    assert total == 3076  # all annotators' mentions of the 41 documents
    assert parsed / total >= 0.95
    assert distinct_parsed / distinct_total >= 0.95


def test_every_real_ladder_is_short_unique_never_the_original_and_holds_the_original(sample_documents):
    for text in set(_datetime_mentions(sample_documents)):
        ladder = datetime_candidates(text)
        assert len(ladder) <= 5 and len(set(ladder)) == len(ladder), text
        assert text.strip().lower() not in [c.lower() for c in ladder], text
        original = parse_datetime(text)
        if original is None or original.hedged:
            continue
        for candidate in ladder:
            general = parse_datetime(candidate)  # the parser is independent of the ladders
            if general is not None:
                assert general.first <= original.first and original.last <= general.last, (text, candidate)
