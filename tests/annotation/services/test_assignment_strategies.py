"""The assignment strategies, on ids, with the expected assignments written by hand."""

import pytest

from annotation.services.assignment import balanced, explicit, round_robin
from annotation.services.errors import DomainError

A, B, C = 101, 102, 103


def loads(pairs):
    counted = {}
    for _, annotator in pairs:
        counted[annotator] = counted.get(annotator, 0) + 1
    return counted


def test_balanced_five_documents_three_annotators_two_each_gives_loads_4_3_3():
    pairs = balanced([1, 2, 3, 4, 5], [A, B, C], 2)
    # d1: a,b (0,0,0 → a,b least, order given); d2: c (0) then a (1, before b);
    # d3: b,c (1 vs a 2); d4: a,b (all 2 → order given); d5: c (2) then a (3, before b).
    assert pairs == [(1, A), (1, B), (2, A), (2, C), (3, B), (3, C), (4, A), (4, B), (5, A), (5, C)]
    assert loads(pairs) == {A: 4, B: 3, C: 3}


def test_balanced_counts_the_current_load_first():
    # b already has 2 open layers: the first documents go to a and c.
    pairs = balanced([1, 2, 3], [A, B, C], 1, current_load={B: 2})
    # d1: a (0,2,0 → a); d2: c (1,2,0); d3: a (1,2,1 → a first).
    assert pairs == [(1, A), (2, C), (3, A)]


def test_balanced_an_existing_pair_counts_towards_the_document_and_is_not_repeated():
    pairs = balanced([1, 2], [A, B, C], 2, existing={(1, B)})
    # d1 already has b: one more, the least loaded (a). d2: b and c (a has 1).
    assert pairs == [(1, A), (2, B), (2, C)]


def test_balanced_applied_twice_adds_nothing():
    first = balanced([1, 2, 3], [A, B], 2)
    assert balanced([1, 2, 3], [A, B], 2, existing=set(first)) == []


def test_round_robin_gives_one_annotator_per_document_in_turn():
    assert round_robin([1, 2, 3, 4, 5], [A, B, C]) == [(1, A), (2, B), (3, C), (4, A), (5, B)]


def test_round_robin_skips_a_covered_document_without_using_a_turn():
    assert round_robin([1, 2, 3], [A, B], existing={(2, B)}) == [(1, A), (3, B)]


def test_explicit_keeps_the_order_and_drops_repeats():
    assert explicit([(3, B), (1, A), (3, B)]) == [(3, B), (1, A)]


def test_explicit_refuses_a_malformed_pair_naming_it():
    with pytest.raises(DomainError, match="Pair 2"):
        explicit([(1, A), (1,)])
