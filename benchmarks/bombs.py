"""Resource bombs: each hostile input must be refused (or read) within about 1 GB peak RSS and 30 s.

Run: ``python benchmarks/bombs.py`` (all, a table in Markdown) or ``python benchmarks/bombs.py NAME...``.
Each bomb is written to a temporary folder by this process and built by ``graphkit.build.build_graph`` in a
fresh child process (peak RSS is the child's ``ru_maxrss``, interpreter and imports included), with an address-space cap of 3 GB and a 120 s timeout so
that a regression cannot take the machine down.  Exits non-zero when a bomb exceeds 1 GB or 30 s, or when
the build raises.  Limits: :mod:`graphkit.limits`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MB = 1024 * 1024
RSS_BUDGET_MB, TIME_BUDGET_S = 1024, 30.0
WF = ".github/workflows/"
INV_HEAD = "schema: graphkit.runner-inventory/v1\n"


def _laughs(indent: str = "") -> str:
    """A billion-laughs block (10 aliases per level, 9 levels: 10^9 nodes once expanded) in under 1 KB."""
    lines = [f"{indent}l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"{indent}l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def _wf(body: str) -> dict[str, str]:
    return {WF + "ci.yml": body}


def _reusable_fanout(levels: int = 8, width: int = 10) -> dict[str, str]:
    """Workflow i calls workflow i+1 ``width`` times: width^levels jobs once inlined."""
    files = {WF + "ci.yml": "on: push\njobs:\n" + "".join(f"  c{j}:\n    uses: ./.github/workflows/w1.yml\n"
                                                           for j in range(width))}
    for i in range(1, levels):
        files[WF + f"w{i}.yml"] = "on: workflow_call\njobs:\n" + "".join(
            f"  c{j}:\n    uses: ./.github/workflows/w{i + 1}.yml\n" for j in range(width))
    files[WF + f"w{levels}.yml"] = "on: workflow_call\njobs:\n  leaf:\n    runs-on: [self-hosted]\n    steps:\n" \
                                   "      - run: echo ${{ secrets.TOKEN }}\n"
    return files


def _composite_fanout(levels: int = 9, width: int = 10) -> dict[str, str]:
    """Action i uses action i+1 ``width`` times: width^levels steps once inlined."""
    files = _wf("on: push\njobs:\n  a:\n    runs-on: [self-hosted]\n    steps:\n      - uses: ./a1\n")
    for i in range(1, levels):
        steps = "".join(f"    - uses: ./a{i + 1}\n" for _ in range(width))
        files[f"a{i}/action.yml"] = f"name: a{i}\nruns:\n  using: composite\n  steps:\n{steps}"
    files[f"a{levels}/action.yml"] = "name: leaf\nruns:\n  using: composite\n  steps:\n    - run: echo hi\n" \
                                     "      shell: bash\n"
    return files


#: name -> (source, files to write {relative path: text}, what it attacks)
def bombs() -> dict[str, tuple[str, Callable[[], dict[str, str]], str]]:
    """Every bomb: name -> (ingestor, generator of files, description)."""
    deep = 10_000
    return {
        "laughs-workflow-env": ("github-actions", lambda: _wf(
            "on: push\nenv:\n" + _laughs("  ") + "jobs:\n  a:\n    runs-on: x\n"), "billion laughs in env (<1 KB)"),
        "laughs-inventory": ("runners", lambda: {"inv.yaml": INV_HEAD + "x-extra:\n" + _laughs("  ")},
                             "billion laughs in an inventory"),
        "laughs-iam-yaml": ("aws-iam", lambda: {"t.yaml": "AWSTemplateFormatVersion: '2010-09-09'\nMetadata:\n"
                                                          + _laughs("  ") + "Resources: {}\n"},
                            "billion laughs in a CloudFormation template"),
        "aliases-100k": ("github-actions", lambda: _wf("on: push\nenv:\n  A: &a x\n  L: [" + ", ".join(["*a"] * 100_000)
                                                       + "]\njobs:\n  a:\n    runs-on: x\n"), "100,000 aliases"),
        "deep-flow-yaml": ("github-actions", lambda: _wf("on: push\nenv:\n  A: " + "[" * deep + "]" * deep
                                                         + "\njobs:\n  a:\n    runs-on: x\n"), "10,000-deep [[[...]]]"),
        "deep-block-yaml": ("runners", lambda: {"inv.yaml": INV_HEAD + "x:\n" + "".join(
            " " * (i + 1) + f"k{i}:\n" for i in range(2000))}, "2,000-deep block mapping"),
        "deep-json-iam": ("aws-iam", lambda: {"p.json": '{"Statement": ' + "[" * 100_000 + "]" * 100_000 + "}"},
                          "100,000-deep JSON"),
        "huge-file-100mb": ("github-actions", lambda: _wf("on: push\njobs:\n  a:\n    runs-on: x\n"
                                                          + "#" * (100 * MB) + "\n"), "100 MB workflow"),
        "run-line-1mb": ("github-actions", lambda: _wf("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
                                                       "      - run: echo " + "a${{ x }}b" * 100_000 + "\n"),
                         "1 MB run: line full of expressions"),
        "run-line-1mb-plain": ("github-actions", lambda: _wf("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
                                                             "      - run: " + "curl x | sh; " * 80_000 + "\n"),
                               "1 MB run: line of commands"),
        "matrix-include-1e5": ("github-actions", lambda: _wf(
            "on: push\njobs:\n  a:\n    runs-on: ${{ matrix.os }}\n    strategy:\n      matrix:\n        include:\n"
            + "".join(f"          - {{os: l{i}}}\n" for i in range(100_000))), "matrix include of 10^5"),
        "matrix-product": ("github-actions", lambda: _wf(
            "on: push\njobs:\n  a:\n    runs-on: ${{ matrix.a }}\n    strategy:\n      matrix:\n"
            + "".join(f"        k{k}: [" + ", ".join(f"v{i}" for i in range(100)) + "]\n" for k in range(5))),
                           "matrix of 100^5 combinations"),
        "jobs-20k": ("github-actions", lambda: _wf("on: push\njobs:\n" + "".join(
            f"  j{i}:\n    runs-on: x\n" for i in range(20_000))), "20,000 jobs in one file"),
        "steps-50k": ("github-actions", lambda: _wf("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n" + "".join(
            "      - run: echo\n" for _ in range(50_000))), "50,000 steps in one job"),
        "reusable-fanout": ("github-actions", _reusable_fanout, "reusable workflows, fan-out 10, 8 levels"),
        "composite-fanout": ("github-actions", _composite_fanout, "composite actions, fan-out 10, 9 levels"),
        "files-30k": ("github-actions", lambda: {WF + f"w{i}.yml": "on: push\njobs:\n  a:\n    runs-on: x\n"
                                                 for i in range(30_000)}, "30,000 workflow files in a checkout"),
        "inventory-labels-50k": ("runners", lambda: {"inv.yaml": INV_HEAD + "runners:\n  - {name: r, scope: acme, "
                                                     "labels: [" + ", ".join(f"l{i}" for i in range(50_000)) + "]}\n"},
                                 "one runner with 50,000 labels"),
        "inventory-runners-50k": ("runners", lambda: {"inv.yaml": INV_HEAD + "runners:\n" + "".join(
            f"  - {{name: r{i}, scope: acme, labels: [self-hosted, l{i % 100}]}}\n" for i in range(50_000))},
                                  "50,000 runners"),
        "key-10mb": ("github-actions", lambda: _wf("on: push\njobs:\n  " + "k" * (10 * MB) + ":\n    runs-on: x\n"),
                     "a 10 MB job key"),
        "k8s-documents-40k": ("k8s", lambda: {"m.yaml": "---\nx: 1\n" * 40_000},
                              "40,000 YAML documents in one file (refused: max_documents_per_file)"),
        "k8s-serviceaccounts-10k": ("k8s", lambda: {"m.yaml": "".join(
            f"---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa{i}\n  namespace: ns\n"
            for i in range(10_000))}, "10,000 ServiceAccount documents in one file (read, linear)"),
        "iam-policies-float": ("aws-iam", lambda: {"a.json": json.dumps({"Policies": 3.14}),
                                                   "ok.json": json.dumps({"Statement": []})},
                               "wrong container type beside a good file"),
    }


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def run_one(name: str, root: Path) -> dict:
    """In this process: build bomb ``name`` written under ``root``; seconds, peak RSS (MB), problems, nodes."""
    from graphkit.build import build_graph

    source = bombs()[name][0]
    start = time.perf_counter()
    result = build_graph({source: [str(root)]})
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": round(seconds, 2), "rss_mb": round(rss), "problems": [str(p) for p in result.problems][:3],
            "nodes": len(result.graph)}


def _child(name: str) -> dict:
    """Write bomb ``name`` here, build it in a child process (address space capped at 3 GB, 120 s timeout)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 1024 * MB, 3 * 1024 * MB))

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "acme__app"
        root.mkdir()
        (root / ".git").mkdir()
        _write(root, bombs()[name][1]())
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, __file__, "--child", name, str(root)], capture_output=True,
                                  text=True, timeout=120, preexec_fn=cap)
        except subprocess.TimeoutExpired:
            return {"seconds": 120.0, "rss_mb": -1, "problems": [], "error": "timeout"}
    if proc.returncode != 0:
        return {"seconds": round(time.perf_counter() - start, 2), "rss_mb": -1, "problems": [],
                "error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        print(json.dumps(run_one(argv[1], Path(argv[2]))))
        return 0
    names = argv or list(bombs())
    failed = 0
    print(f"| bomb | what | seconds | peak RSS (MB) | nodes | outcome |\n|---|---|---|---|---|---|")
    for name in names:
        r = _child(name)
        ok = "error" not in r and r["seconds"] <= TIME_BUDGET_S and 0 <= r["rss_mb"] <= RSS_BUDGET_MB
        failed += not ok
        outcome = r.get("error") or (r["problems"][0].split(": ", 1)[-1][:110] if r["problems"] else "read, no problem")
        print(f"| {name} | {bombs()[name][2]} | {r['seconds']} | {r['rss_mb']} | {r.get('nodes', '')} | "
              f"{'OK' if ok else 'FAIL'}: {outcome} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
