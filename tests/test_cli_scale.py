"""The CLI computes only what it prints (issue 19): ``--top`` bounds the revocation plan's work, ``--no-plan``
skips it; ``--all-runners`` gives every runner's blast radius in one run."""

from __future__ import annotations

import json
import re

import pytest

import graphkit.analysis
from graphkit.analysis import revocation_plan as full_plan

from test_cli import INVENTORY, REPOS, graph_file, invoke  # noqa: F401  (graph_file: a fixture)

SRC = "runner:acme/build-01-a"


@pytest.fixture()
def plan_calls(monkeypatch):
    calls: list = []

    def spy(graph, sources, **kw):
        calls.append(kw.get("max_steps"))
        return full_plan(graph, sources, **kw)

    monkeypatch.setattr(graphkit.analysis, "revocation_plan", spy)
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
    # the document says its list was cut: two listed of all reached
    assert doc["counts"]["reached_listed"] == 2 < doc["counts"]["reached"]
    assert whole["counts"]["reached_listed"] == whole["counts"]["reached"] == len(whole["reached"])


def test_top_past_the_end_is_the_whole_plan(graph_file, plan_calls):
    doc = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json",
                            "--top", "500").stdout)
    assert plan_calls == [501] and "plan" not in doc and doc["counts"]["revocations"] < 500


def test_no_plan_computes_no_plan(graph_file, monkeypatch):
    monkeypatch.setattr(graphkit.analysis, "revocation_plan", lambda *a, **k: pytest.fail("plan computed"))
    doc = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json",
                            "--no-plan").stdout)
    assert doc["revocations"] == [] and doc["plan"] == {"computed": False, "complete": False, "max_steps": 0}
    assert doc["counts"]["revocations"] is None  # not counted: never "0 revocations"
    assert doc["counts"]["reached"] > 10 and doc["residual_weight"] == doc["weight"]
    table = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--no-plan").stdout
    assert table.count("plan not computed (--no-plan)") == 1 and "First steps" not in table
    assert "Revocation plan" not in table and "residual" not in table  # no plan, no residual line


def test_table_top_says_the_plan_goes_on(graph_file, plan_calls):
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--top", "6")
    assert plan_calls == [7]
    assert "more steps after residual" in res.stdout and "--top 6 bounds the plan" in res.stdout


def test_table_top_below_the_summary_names_what_was_asked(graph_file, plan_calls):
    """``--top 2``: two steps computed (and one to know the plan goes on), two shown in the summary and the plan,
    the note names ``--top 2``."""
    out = invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--top", "2").stdout
    assert plan_calls == [3]
    assert "First steps (2 of 2+;" in out and "--top 2 bounds the plan" in out and "--top 5" not in out
    ranks = [line.split()[0] for line in out.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert ranks == ["1.", "2.", "1.", "2."]  # the summary's first steps, then the plan: never a third step


def test_all_runners_api_equals_one_at_a_time(graph_file):
    from graphkit.analysis import blast_radii, blast_radius
    from graphkit.graph import Graph
    from graphkit.model import NodeKind
    g = Graph.load(graph_file)
    runners = [n.id for n in g.nodes(NodeKind.RUNNER)]
    seen: list = []
    radii = list(blast_radii(g, progress=lambda done, total: seen.append((done, total))))
    assert [r.sources for r in radii] == [(r,) for r in runners] and len(runners) == 3
    assert radii == [blast_radius(g, r) for r in runners]
    assert seen == [(i, len(runners)) for i in range(1, len(runners) + 1)]
    with pytest.raises(Exception, match="no node with id"):
        next(blast_radii(g, ["runner:acme/nope"]))


def test_all_runners_cli_json_and_table(graph_file):
    res = invoke("blast-radius", "--graph", str(graph_file), "--all-runners", "--format", "json", "--no-plan")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["schema"] == "graphkit.blast-radius-all/v1"
    one = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", SRC, "--format", "json",
                            "--no-plan").stdout)
    assert [d for d in doc["runners"] if d["source"] == [SRC]] == [one]
    table = invoke("blast-radius", "--graph", str(graph_file), "--all-runners", "--top", "1").stdout
    heaviest = max(doc["runners"], key=lambda d: (d["weight"], [-ord(c) for c in d["source"][0]]))
    assert heaviest["source"][0] in table.splitlines()[1]  # heaviest first
    assert invoke("blast-radius", "--graph", str(graph_file)).exit_code == 2  # neither --from nor --all-runners


def test_all_runners_conflicts_are_usage_errors_naming_the_options(graph_file):
    res = invoke("blast-radius", "--graph", str(graph_file), "--all-runners", "--from", SRC)
    assert res.exit_code == 2 and "--from and --all-runners exclude each other" in res.output
    res = invoke("blast-radius", "--graph", str(graph_file), "--all-runners", "--format", "runbook")
    assert res.exit_code == 2 and "--all-runners has no runbook format" in res.output
    res = invoke("blast-radius", "--graph", str(graph_file))
    assert res.exit_code == 2 and "give --from ID (repeatable) or --all-runners" in res.output
