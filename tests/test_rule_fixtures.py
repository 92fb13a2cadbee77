"""Every finding rule has a positive and a negative fixture, built from files through the public API.

Layout: ``tests/fixtures/rules/<rule-id>/positive/`` and ``.../negative/``, each a fixture case (``case.yaml``
plus its input files; format in ``tests/regen_goldens.py``).  A positive ``case.yaml`` lists under ``expect``
the findings of that rule its inputs must yield (``{subject, severity}``); the negative fixture is a near miss
(the same shape with the one difference that makes the rule silent) and must yield no finding of that rule.

:func:`test_every_rule_has_both_fixtures` fails when a rule registered in ``graphkit.rules.RULE_MODULES`` has no
fixture (so a new rule cannot land untested), or a fixture folder names no registered rule.
"""

from __future__ import annotations

import pytest

import regen_goldens as gold
from graphkit.findings import Finding, rules, run_rules

RULES = sorted(rules())
KINDS = ("positive", "negative")


def _findings(rule_id: str, kind: str) -> tuple[gold.Case, list[Finding]]:
    """The fixture case and every finding (all rules) of its graph; the fixture must build without problems."""
    folder = gold.RULE_FIXTURES / rule_id / kind
    if not (folder / "case.yaml").is_file():
        pytest.fail(f"rule {rule_id} has no {kind} fixture: write {folder.relative_to(gold.REPO)}/case.yaml "
                    "and its inputs", pytrace=False)
    case = gold.load_case(folder)
    assert not gold.missing_inputs(case), f"{case.name}: inputs do not exist: {gold.missing_inputs(case)}"
    result = gold.build_case(case)
    assert [p.as_dict() for p in result.problems] == [], f"{case.name}: a fixture must read cleanly"
    return case, run_rules(result.graph, gold.finding_options(case))


@pytest.mark.parametrize("rule_id", RULES)
def test_positive_fixture_yields_the_expected_findings(rule_id):
    case, found = _findings(rule_id, "positive")
    assert case.expect, f"{case.name}: a positive fixture lists the findings it must yield under 'expect'"
    mine = {(f.subject, f.severity.value) for f in found if f.rule == rule_id}
    wanted = {(e["subject"], e["severity"]) for e in case.expect}
    assert wanted <= mine, f"{case.name}: missing {sorted(wanted - mine)}; the rule found {sorted(mine)}"
    for f in found:
        if f.rule == rule_id:
            assert f.evidence, f"{f.id} ({f.subject}) has no evidence"


@pytest.mark.parametrize("rule_id", RULES)
def test_negative_fixture_yields_none_of_the_rule(rule_id):
    case, found = _findings(rule_id, "negative")
    assert not case.expect, f"{case.name}: a negative fixture expects nothing"
    assert [(f.subject, f.severity.value, f.message) for f in found if f.rule == rule_id] == []


def test_every_rule_has_both_fixtures():
    missing = [f"{r}/{k}" for r in RULES for k in KINDS if not (gold.RULE_FIXTURES / r / k / "case.yaml").is_file()]
    assert missing == [], f"rules without fixtures (tests/fixtures/rules/...): {missing}"
    folders = sorted(p.name for p in gold.RULE_FIXTURES.iterdir() if p.is_dir())
    assert [f for f in folders if f not in RULES] == [], "fixture folders that name no registered rule"
    for name in folders:
        extra = sorted(p.name for p in (gold.RULE_FIXTURES / name).iterdir() if p.name not in KINDS)
        assert extra == [], f"tests/fixtures/rules/{name}: only positive/ and negative/ belong here, not {extra}"
