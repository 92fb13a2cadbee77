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
