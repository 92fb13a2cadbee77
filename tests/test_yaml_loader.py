"""The one YAML loader composes with libyaml's C composer when it can: the same data, lines and refusals as the
bounded Python composer (differential), on real workflow files and on hostile documents."""

from pathlib import Path

import pytest
from conftest import require

from graphkit.errors import InputError
from ingest import _yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def _both(text: str, monkeypatch: pytest.MonkeyPatch):
    """``load_yaml`` through the C composer, then through the bounded Python composer only."""
    def once():
        try:
            return _yaml.load_yaml(text, file="f.yml")
        except InputError as exc:
            return ("error", str(exc))
    fast = once()
    with monkeypatch.context() as m:
        m.setattr(_yaml, "_C_COMPOSE", None)
        slow = once()
    assert repr(fast) == repr(slow)  # same types too (True is not 1, 1.0 is not 1)
    return fast, slow


def _files() -> list[Path]:
    found = sorted((ROOT / "examples").rglob("*.y*ml")) + sorted((ROOT / "tests/fixtures").rglob("*.y*ml"))
    if CORPUS.is_dir():
        found += sorted(CORPUS.rglob("*.y*ml"))
    return found


def test_same_data_and_lines_on_every_yaml_file(monkeypatch):
    require(CORPUS.is_dir(), f"corpus not present at {CORPUS}", corpus=True)
    files = _files()
    assert len(files) > 150
    for path in files:
        fast, slow = _both(path.read_text(encoding="utf-8", errors="replace"), monkeypatch)
        assert fast == slow, path


HOSTILE = {
    "duplicate key": "a: 1\nb:\n  c: 2\n  c: 3\n",
    "deep": "".join("  " * i + "k:\n" for i in range(120)) + "  " * 120 + "k: 1\n",
    "deep flow": "a: " + "[" * 150 + "]" * 150 + "\n",
    "syntax after duplicate": "a: 1\na: 2\nb: [\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "aliases": "a: &x [1, 2]\nb: *x\nc: {<<: {d: 1}, e: 2}\n",
    "billion laughs": "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(7)),
    "recursive": "a: &a [*a]\n",
    "bad int": "a: !!int 12x\n",
    "merge key lines": "base:\n  x: 1\nuse:\n  <<: {y: 2}\n  z: 3\n",
    "same path twice": "a:\n  b: 1\na.b: 2\n",
    "complex key": "? [a, b]\n: 1\nc: 2\n",
    "keys of every type": "on: 1\nyes: 2\n1: a\n'1': b\n0x1f: c\n1.5: d\n~: e\n2001-12-14: f\n",
    "equal keys written apart": "1: a\n01: b\n",
    "two NaN keys": ".nan: 1\n.NaN: 2\n",
    "same NaN key twice": ".nan: 1\n.nan: 2\n",
    "quoted merge key": "'<<': {a: 1}\nb: 2\n",
    "value key": "a:\n  =: 1\n  b: 2\n",
    "tags": "a: !!str 12\nb: !!float 1\nc: !!binary aGVsbG8=\nd: !!set {x, y}\ne: !!omap [{a: 1}]\nf: !!bool yes\n",
    "bad bool": "a: !!bool maybe\nb: 1\n",
    "bad float before a duplicate": "a: !!float x\nb: 1\nb: 2\n",
    "unknown tag": "a: !Ref x\nb: [1]\n",
    "scalar document": "just text\n",
    "empty collections": "a: {}\nb: []\nc: [[], {}, [{}]]\nd:\n",
    "timestamps and ints": "a: 2001-12-14t21:59:43.10-05:00\nb: 0o17\nc: 1_000\nd: 190:20:30\ne: -.inf\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_same_result_on_hostile_documents(name, monkeypatch):
    fast, slow = _both(HOSTILE[name], monkeypatch)
    assert fast == slow


def test_node_limit_refused_at_the_same_node(monkeypatch):
    text = "items:\n" + "".join(f"  - {{a: {i}, b: [{i}, {i}]}}\n" for i in range(60))
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_YAML_NODES", "100")
    fast, slow = _both(text, monkeypatch)
    assert fast == slow and fast[0] == "error" and "max_yaml_nodes" in fast[1] and "line 16:" in fast[1]  # 6 nodes a line


def test_refusals_name_their_line():
    with pytest.raises(InputError, match="line 4.*duplicate key 'c' \\(first at line 3\\)"):
        _yaml.load_yaml(HOSTILE["duplicate key"], file="f.yml")
    with pytest.raises(InputError, match="line 100: refused: nesting deeper than 100 levels"):
        _yaml.load_yaml(HOSTILE["deep"], file="f.yml")


@pytest.mark.parametrize("opening", ["[", "{a: ", "- "])
def test_nesting_too_deep_for_the_c_composer_is_refused_not_a_crash(opening, tmp_path):
    """100,000 levels in a 200-600 KB workflow (flow sequences, flow mappings, compact block sequences): the C
    composer would recurse past the C stack and kill the process (exit 139) with a libyaml that does not bound
    nesting; the loader hands it to the bounded composer, which refuses it at ``max_depth`` (or libyaml's parser
    refuses it first where it bounds nesting).  Run in a child process, so a crash fails this test only."""
    import subprocess
    import sys

    closing = {"[": "]", "{a: ": "}", "- ": ""}[opening]
    body = opening * 100_000 + "x" + closing * 100_000
    wf = tmp_path / "deep.yml"
    wf.write_text(f"on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    env:\n      X:\n        {body}\n",
                  encoding="utf-8")
    assert _yaml._depth_bound(wf.read_text(encoding="utf-8")) > _yaml._C_SAFE_DEPTH
    code = ("import sys; from ingest import _yaml; from graphkit.errors import InputError\n"
            "try:\n    _yaml.load_yaml(open(sys.argv[1], encoding='utf-8').read(), file='deep.yml')\n"
            "except InputError as exc:\n    print(exc)\n")
    res = subprocess.run([sys.executable, "-c", code, str(wf)], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-500:]
    # refused by the bounded composer, or by a libyaml that bounds nesting itself (builds differ): never a crash
    assert res.stdout.startswith("deep.yml: line 7: ")
    assert "nesting deeper than 100 levels" in res.stdout or "exceeded maximum nesting depth" in res.stdout


def test_depth_bound_keeps_ordinary_workflows_on_the_c_composer():
    """Every real workflow file of the corpus is far below the bound (the fast path stays the path)."""
    files = sorted((CORPUS / "github-actions").rglob("*.yml"))
    require(files, "corpus workflows")
    assert max(_yaml._depth_bound(f.read_text(encoding="utf-8", errors="replace")) for f in files) < 2_000


def _composed_depth(text: str) -> int | None:
    """Nesting of the node tree libyaml's composer builds for ``text`` (collections and the scalar at the end of
    a path count one each), or None when libyaml refuses the document."""
    import yaml
    try:
        root = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return None
    if root is None:
        return 0
    deepest, stack, seen = 0, [(root, 1)], set()
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack += [(n, depth + 1) for n in node.value]
        elif isinstance(node, yaml.MappingNode):
            stack += [(n, depth + 1) for pair in node.value for n in pair]
    return deepest


_TRICKY = [
    "[a: [b: [c: [d: e]]]]", "- - - - - - x", "? - - a\n: - - b\n", "a:\n- b:\n  - c:\n    - d: [e, {f: [g]}]\n",
    "a:\r  - - - x\r  - [y: [z]]\r", "a: b # [[[[ {{{\nc: [d, [e]]\n", '[ "]", [ "]", [x]]]', "['[', [']', [x]]]",
    "{a: {b: {c: [d, {e: f}]}}}", "- &x [a, [b]]\n- *x\n", "k: !!seq [a, [b, [c]]]\n", "- {a: [b: [c: d]]}\n",
    "\ufeff- - - [a: [b]]\n", "a:\n  b:\n    c:\n      - - - [x, [y, {z: [w]}]]\n", "[\n [\n  [\n   x\n  ]\n ]\n]\n",
    "- ? - a\n  : - b\n", "a: |\n  - - - [[[\nb: [c]\n", "a: 'x ] [ y'\nb: \"[\"\n",
]


def _random_document(rng) -> str:
    import yaml

    def value(depth: int):
        roll = rng.random()
        if depth > 12 or roll < 0.25:
            return rng.choice(["x", "a: b", "[", "]", "{}", "'q'", '"', "# c", "- d", "? e", "", 1, None, True])
        if roll < 0.6:
            return [value(depth + 1) for _ in range(rng.randrange(1, 4))]
        keys = ["k", "a b", "[x]", "-", "?", "é"]
        return {rng.choice(keys) + str(i): value(depth + 1) for i in range(rng.randrange(1, 4))}
    text = yaml.safe_dump(value(0), default_flow_style=rng.choice([None, True, False]), indent=rng.randrange(2, 6),
                          width=rng.choice([20, 80, 10_000]), allow_unicode=rng.random() < 0.5)
    return text.replace("\n", rng.choice(["\n", "\r\n", "\r"]))


@pytest.mark.parametrize("seed", range(200))
def test_layout_bound_is_an_upper_bound_of_the_nesting(seed):
    """The bound that keeps long documents on the C composer (:func:`_yaml._layout_bound`) is never below the
    nesting libyaml composes: random documents in block, flow and mixed styles, with LF, CRLF or CR lines, and
    documents built to nest through single-pair mappings, compact entries, indentless sequences, quoted or
    commented brackets."""
    import random
    rng = random.Random(seed)
    texts = [_random_document(rng)] + ([t] if (t := _TRICKY[seed % len(_TRICKY)]) else [])
    for text in texts:
        depth = _composed_depth(text)
        if depth is None:
            continue
        opens = text.count("[") + text.count("{")
        assert _yaml._layout_bound(text, opens) >= depth, text
        assert _yaml._depth_bound(text) >= depth, text


def test_layout_bound_keeps_a_long_inventory_on_the_c_composer():
    """A runner inventory of 5,000 runners (short lines, thousands of ``-`` and flow lists) is under the C
    composer's bound, while the count of its ``-`` alone is not."""
    runners = "".join(f"  - name: runner-{i:05d}\n    labels: [self-hosted, linux, x-{i}]\n"
                      f"    groups: [{{name: g-{i % 7}}}]\n" for i in range(5_000))
    text = f"schema: graphkit.runner-inventory/v1\nrunners:\n{runners}"
    assert text.count("-") > _yaml._C_SAFE_DEPTH
    assert _yaml._depth_bound(text) < 100
