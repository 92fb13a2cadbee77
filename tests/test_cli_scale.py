"""The CLI computes only what it prints (issue 19): ``--top`` bounds the revocation plan's work, ``--no-plan``
skips it; ``--all-runners`` gives every runner's blast radius in one run."""

from __future__ import annotations

import json

import pytest

import graphkit.output
from graphkit.analysis import revocation_plan as full_plan

from test_cli import INVENTORY, REPOS, graph_file, invoke  # noqa: F401  (graph_file: a fixture)

SRC = "runner:acme/build-01-a"


@pytest.fixture()
def plan_calls(monkeypatch):
    calls: list = []

    def spy(graph, sources, **kw):
        calls.append(kw.get("max_steps"))
        return full_plan(graph, sources, **kw)

    monkeypatch.setattr(graphkit.output, "revocation_plan", spy)
    return calls


def test_top_bounds_the_plan(graph_file, plan_calls):
    whole = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json").stdout)
    assert plan_calls == [None] and whole["counts"]["revocations"] > 3 and "plan" not in whole
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json", "--top", "2")
    doc = json.loads(res.stdout)
    assert plan_calls[1] == 3  # two steps shown, one more computed to know that the plan goes on
    assert doc["revocations"] == whole["revocations"][:2]
    assert doc["plan"] == {"computed": True, "complete": False, "max_steps": 2}
    assert doc["residual_weight"] == whole["revocations"][1]["residual_weight"]
    assert len(doc["reached"]) == 2 and doc["counts"]["reached"] == whole["counts"]["reached"]


def test_top_past_the_end_is_the_whole_plan(graph_file, plan_calls):
    doc = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json",
                            "--top", "500").stdout)
    assert plan_calls == [501] and "plan" not in doc and doc["counts"]["revocations"] < 500


def test_no_plan_computes_no_plan(graph_file, monkeypatch):
    monkeypatch.setattr(graphkit.output, "revocation_plan", lambda *a, **k: pytest.fail("plan computed"))
    doc = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json",
                            "--no-plan").stdout)
    assert doc["revocations"] == [] and doc["plan"] == {"computed": False, "complete": False, "max_steps": 0}
    assert doc["counts"]["reached"] > 10 and doc["residual_weight"] == doc["weight"]
    table = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--no-plan").stdout
    assert "not computed (--no-plan)" in table and "First steps (0 of 0 (--no-plan)" in table


def test_table_top_says_the_plan_goes_on(graph_file, plan_calls):
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--top", "6")
    assert plan_calls == [7]
    assert "more steps after residual" in res.stdout and "--top 6 bounds the plan" in res.stdout
