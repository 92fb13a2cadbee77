"""The build's fast paths (issue 19) against their references: ``Edge.fast`` against ``Edge(...)`` (validation),
the props sharing's quick key against the JSON-text comparison it stands in for."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from graphkit.model import Confidence, Edge, EdgeKind, Evidence, Lifetime, RevocationAction
from graphkit.storage import Interner, _quick_key

_EV = [Evidence(file="a"), Evidence(file="b", line=3)]
_OPTIONS = {"key": ["", "k", 3], "confidence": [Confidence.POSSIBLE, "possible", None],
            "lifetime": [None, Lifetime.PER_JOB, "per_job"], "revoked_by": [None, RevocationAction.PURGE_CACHE],
            "props": [{}, {"a": 1}, {1: 2}, [("a", 1)]],
            "evidence": [_EV, tuple(_EV), [], [_EV[0]], [{"file": "x"}], "x"]}


def _outcome(make, fields):
    try:
        e = make(**fields)
    except Exception as exc:  # the same error type and message, or the same edge
        return type(exc).__name__, str(exc).split("\n")[:2]
    return e.__dict__, e.__pydantic_fields_set__, type(e.props), e.evidence is fields["evidence"]


@pytest.mark.parametrize("kind", [EdgeKind.RESTORES_INTO, EdgeKind.ASSUMES_ROLE, EdgeKind.RECEIVES_JOB, "owns"])
def test_edge_fast_equals_validated_edge(kind):
    checked = 0
    for combo in itertools.product(*[[...] + v for v in _OPTIONS.values()]):
        fields = {"kind": kind, "source": "s", "target": "t"}
        fields.update({k: v for k, v in zip(_OPTIONS, combo) if v is not ...})
        if "evidence" not in fields:
            continue
        assert _outcome(Edge.fast, fields) == _outcome(Edge, fields), fields
        checked += 1
    assert checked == 4 * 4 * 4 * 3 * 5 * 6


def test_edge_fast_copies_props_and_evidence():
    props, ev = {"via": "oidc"}, list(_EV)
    e = Edge.fast(kind=EdgeKind.ASSUMES_ROLE, source="s", target="t", evidence=ev, props=props)
    assert e.props == props and e.props is not props and e.evidence == ev and e.evidence is not ev
    assert e.lifetime is Edge(kind=EdgeKind.ASSUMES_ROLE, source="s", target="t", evidence=ev).lifetime


def _random_value(rng):
    return rng.choice([1, 0, True, False, None, "1", "true", "", 1.0, -0.0, 0.0, ["a"], ("a",), ["a", 1], {"x": 1}])


def test_props_sharing_quick_key_matches_json_text():
    """Equal quick keys only for props with equal JSON texts, and the shared mapping is the one the JSON-text
    table alone gives (the reference: a table keyed by ``json.dumps(props, sort_keys=True)``)."""
    rng = random.Random(7)
    interner, reference = Interner(), {}
    seen_quick = 0
    for _ in range(3000):
        props = {rng.choice(["a", "b", 1, "1"]): _random_value(rng) for _ in range(rng.randint(1, 3))}
        if rng.random() < 0.3:
            props = dict(reversed(list(props.items())))
        q = _quick_key(props)
        seen_quick += q is not None
        try:
            text = json.dumps(props, sort_keys=True)
        except TypeError:  # mixed key types: not sortable, not shared
            got = interner.props(props)
            assert got == props and got is not props
            continue
        want = reference.setdefault(text, props)
        assert interner.props(props) is want
    assert 500 < seen_quick < 3000
    assert _quick_key({"a": 1}) != _quick_key({"a": True}) and _quick_key({"a": 0.0}) is None
