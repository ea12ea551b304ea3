"""Choosing what to mask: CP-SAT (OR-Tools).

    minimise   Σ_e masked(e) · IC(e)
    subject to Σ_{e ∈ c} masked(e) ≥ 1   for every risky combination c
               masked(e) = 1              for every direct identifier

Single risky entities are combinations of one. Information content is what masking
costs the reader, so among the entities of a risky combination the cheapest is masked.
The result records, for each masked entity, which constraint required it."""

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

SCALE = 1000  # CP-SAT works on integers: IC in thousandths


@dataclass
class MaskingProblem:
    information_content: dict[int, float]
    combinations: list[tuple[int, ...]] = field(default_factory=list)
    direct: set[int] = field(default_factory=set)


@dataclass
class MaskingSolution:
    masked: set[int]
    reasons: dict[int, str]
    objective: float
    status: str


def solve(problem: MaskingProblem, time_limit: float = 5.0) -> MaskingSolution:
    entities = sorted(problem.information_content)
    model = cp_model.CpModel()
    x = {e: model.new_bool_var(f"mask_{e}") for e in entities}
    for e in problem.direct:
        model.add(x[e] == 1)
    combinations = [tuple(sorted(set(c))) for c in problem.combinations if c]
    for combination in combinations:
        model.add_bool_or([x[e] for e in combination])
    # Costs are kept strictly positive so that nothing is masked without a reason.
    model.minimize(sum(max(1, round(problem.information_content[e] * SCALE)) * x[e] for e in entities))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1  # one core per document: documents run in parallel
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # Infeasible cannot happen (masking everything satisfies every constraint), but
        # a timeout without a solution must not leak: mask everything then.
        return MaskingSolution(
            set(entities),
            {e: "the optimizer found no solution in time: masked" for e in entities},
            sum(problem.information_content.values()),
            solver.status_name(status),
        )
    masked = {e for e in entities if solver.value(x[e])}
    return MaskingSolution(
        masked,
        _reasons(masked, problem, combinations),
        sum(problem.information_content[e] for e in masked),
        solver.status_name(status),
    )


def _reasons(masked: set[int], problem: MaskingProblem, combinations: list[tuple[int, ...]]) -> dict[int, str]:
    reasons = {}
    for e in masked:
        if e in problem.direct:
            reasons[e] = "direct identifier"
            continue
        forcing = [c for c in combinations if e in c and not (set(c) - {e}) & masked]
        if forcing:
            c = min(forcing, key=len)
            reasons[e] = "risky on its own" if len(c) == 1 else f"risky together with entities {sorted(set(c) - {e})}"
        else:
            reasons[e] = "masked with a combination already covered"
    return reasons
