"""A plan's steps made on demand (graphkit.analysis.results.RevocationSteps, what ``revocation_plan`` returns):
it behaves as the tuple of steps it replaces (indexes, negative indexes, slices, iteration, equality and hash,
pickling, ``to_dict``), makes each step once, and the steps are the reference loop's (graphkit/analysis/plan/
greedy.py) field for field on the bundled example."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from graphkit.analysis import RevocationPlan, RevocationStep, RevocationSteps, reach, revocation_plan
from graphkit.analysis.plan.candidates import candidates, incident
from graphkit.analysis.plan.greedy import greedy_plan
from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.model import NodeKind, RevocationAction

from test_radius_arrays import EXAMPLE


@pytest.fixture(scope="module")
def acme() -> Graph:
    return build_graph(EXAMPLE).graph


@pytest.fixture(scope="module")
def plans(acme) -> tuple[RevocationPlan, RevocationPlan]:
    """The example's plan from its first runner: ``revocation_plan``'s and the reference loop's."""
    runner = sorted(n for n in acme.nx if n.startswith("runner:"))[0]
    srcs = reach.source_ids(acme, runner)
    inc = incident(acme, srcs)
    roles = frozenset(i for i, nd in enumerate(inc.sub.nodes) if nd.spec.kind is NodeKind.CLOUD_ROLE)
    return revocation_plan(acme, runner), greedy_plan(inc, candidates(inc), None, roles)


def _fields(step: RevocationStep) -> tuple:
    return tuple(getattr(step, f.name) for f in dataclasses.fields(step))


def test_the_plan_is_the_reference_field_for_field(plans):
    plan, ref = plans
    assert isinstance(plan.steps, RevocationSteps) and type(ref.steps) is tuple
    assert len(plan.steps) == len(ref.steps) == len(plan) > 5
    assert [_fields(s) for s in plan.steps] == [_fields(s) for s in ref.steps]
    assert (plan.sources, plan.initial_weight, plan.held) == (ref.sources, ref.initial_weight, ref.held)
    assert plan.residual_weight == ref.residual_weight == ref.steps[-1].residual_weight
    assert plan == ref and ref == plan and hash(plan) == hash(ref)


def test_indexes_and_slices_behave_as_the_tuple(plans):
    plan, ref = plans
    steps, want = plan.steps, ref.steps
    n = len(want)
    for i in [0, 1, n - 1, -1, -2, -n]:
        assert steps[i] == want[i]
    for i in [n, -n - 1, 10 ** 6]:
        with pytest.raises(IndexError):
            steps[i]
    for sl in [slice(None, 5), slice(2, None), slice(None, None, -1), slice(-3, None), slice(1, 9, 3), slice(5, 2)]:
        assert steps[sl] == want[sl] and type(steps[sl]) is tuple
    assert list(reversed(steps)) == list(reversed(want))
    assert steps[0] in steps and steps.index(steps[3]) == 3 and steps.count(steps[2]) == 1
    assert [s.rank for s in steps] == list(range(1, n + 1))
    with pytest.raises(TypeError):
        steps["1"]


def test_equality_and_hash_are_a_tuples(plans):
    plan, ref = plans
    steps, want = plan.steps, ref.steps
    assert steps == want and want == steps and steps == RevocationSteps.of(want)
    assert hash(steps) == hash(want)
    assert steps != want[:-1] and want[:-1] != steps and steps != list(want)
    assert steps != RevocationSteps.of(want[:-1])
    changed = dataclasses.replace(want[0], reduction=want[0].reduction + 1)
    assert steps != (changed, *want[1:])
    assert RevocationSteps.of(()) == () and not RevocationSteps.of(())


def test_each_step_is_made_once_on_demand():
    made: list[int] = []

    def make(i: int) -> RevocationStep:
        made.append(i)
        return RevocationStep(rank=i + 1, action=_ACTION, subject_id=str(i), subject_kind=NodeKind.RUNNER,
                              subject_name=f"r{i}", description="d", long_lived=True, phase="contain", reduction=1,
                              cuts=(), residual_weight=10 - i)

    steps = RevocationSteps(10, make)
    assert len(steps) == 10 and made == []
    assert steps[-1] is steps[9] and made == [9]
    assert steps[2:4] == (steps[2], steps[3]) and made == [9, 2, 3]
    plan = RevocationPlan(sources=("runner:r0",), initial_weight=11, held=(), steps=steps)
    assert plan.residual_weight == 1 and made == [9, 2, 3]
    assert [s.residual_weight for s in plan] == list(range(10, 0, -1))
    assert sorted(made) == list(range(10))  # every step made exactly once
    with pytest.raises(AttributeError):
        steps._n = 3  # type: ignore[misc]


def test_pickle_and_to_dict_round_trip(plans):
    plan, ref = plans
    back = pickle.loads(pickle.dumps(plan))
    assert back == plan == ref and isinstance(back.steps, RevocationSteps)
    assert back.steps[-1] == ref.steps[-1]
    d = plan.to_dict()
    assert d == ref.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert [s["rank"] for s in d["steps"]] == list(range(1, len(ref.steps) + 1))
    assert d["steps"][0]["cuts"] == list(ref.steps[0].cuts)


def test_replace_with_a_prefix_as_the_cli_does(plans):
    plan, ref = plans
    top = dataclasses.replace(plan, steps=plan.steps[:3])
    assert top.steps == ref.steps[:3] and top.residual_weight == ref.steps[2].residual_weight
    assert len(top) == 3


_ACTION = next(iter(RevocationAction))
