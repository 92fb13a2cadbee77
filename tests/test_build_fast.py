"""The build's fast paths (issue 19) against their references: the props sharing's quick key against the JSON-text
comparison it stands in for."""

from __future__ import annotations

import json
import random

import pytest

from graphkit.storage import Interner, _quick_key

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


def test_limits_current_follows_the_environment_and_cli(monkeypatch):
    """``limits.current()`` is made once per distinct values, and still reads them at each call."""
    from graphkit import limits
    monkeypatch.delenv("GRAPHKIT_LIMIT_MAX_DEPTH", raising=False)
    first = limits.current()
    assert limits.current() is first and first.max_depth == limits.Limits().max_depth
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DEPTH", "7")
    assert limits.current().max_depth == 7
    limits.apply_cli(["max_depth=9"])
    try:
        assert limits.current().max_depth == 9
    finally:
        limits.apply_cli([])
    assert limits.current().max_depth == 7
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DEPTH", "0")
    with pytest.raises(limits.LimitError):
        limits.current()
    monkeypatch.delenv("GRAPHKIT_LIMIT_MAX_DEPTH")
    assert limits.current() is first
