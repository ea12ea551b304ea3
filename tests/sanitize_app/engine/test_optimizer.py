"""CP-SAT on hand-made cases whose optimum is known."""

from sanitize_app.engine.optimizer import MaskingProblem, solve


def test_single_risky_entities_are_masked_and_nothing_else():
    solution = solve(MaskingProblem({0: 2.0, 1: 1.0, 2: 3.0}, combinations=[(0,), (2,)]))
    assert solution.masked == {0, 2} and solution.objective == 5.0
    assert solution.reasons == {0: "risky on its own", 2: "risky on its own"}


def test_a_risky_pair_masks_its_cheaper_member():
    solution = solve(MaskingProblem({0: 5.0, 1: 1.5}, combinations=[(0, 1)]))
    assert solution.masked == {1}
    assert solution.reasons[1] == "risky together with entities [0]"


def test_overlapping_combinations_are_covered_at_least_cost():
    # (0,1), (1,2), (2,3): {1, 2} costs 2; {1, 3} costs 4; {0, 2} costs 6.
    solution = solve(MaskingProblem({0: 5.0, 1: 1.0, 2: 1.0, 3: 3.0}, combinations=[(0, 1), (1, 2), (2, 3)]))
    assert solution.masked == {1, 2} and solution.objective == 2.0 and solution.status == "OPTIMAL"


def test_direct_identifiers_are_masked_whatever_they_cost():
    solution = solve(MaskingProblem({0: 9.0, 1: 0.1}, combinations=[(0, 1)], direct={0}))
    assert solution.masked == {0}  # the pair is covered by the direct identifier already
    assert solution.reasons[0] == "direct identifier"


def test_without_risk_nothing_is_masked():
    assert solve(MaskingProblem({0: 1.0, 1: 2.0})).masked == set()
