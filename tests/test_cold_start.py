"""Cold start: ``graphkit --help`` (and registering every command) imports none of the heavy modules (no timings:
the benchmark suite measures CPU time, ``benchmarks/run.py``)."""

import subprocess
import sys

HEAVY = ("networkx", "pydantic", "neo4j", "plotly", "detect_secrets", "yaml", "graphkit.model", "graphkit.graph",
         "ingest.github_actions.parse", "ingest.runner_inventory.models", "ingest.aws_iam.parse")

PROBE = f"""
import sys
import graphkit.cli
sys.argv = ["graphkit", "--help"]
try:
    graphkit.cli.app()
except SystemExit:
    pass
print("LOADED", sorted(m for m in {HEAVY!r} if m in sys.modules))
"""


def test_help_imports_no_heavy_module():
    res = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "blast-radius" in res.stdout and "synth" in res.stdout
    assert res.stdout.strip().splitlines()[-1] == "LOADED []"


def test_build_help_lists_every_registered_input_option():
    res = subprocess.run([sys.executable, "-m", "graphkit.cli", "build", "--help"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    for flag in ("--github-actions", "--runners", "--aws-iam"):
        assert flag in res.stdout


def test_blast_radius_on_a_saved_graph_imports_no_scipy_plotly_or_driver(tmp_path):
    """One blast radius and its plan on the example's saved graph run on the compiled kernels (or numpy): scipy
    (about 0.4 s to import; used only when the radius kernel is not built), plotly, the Neo4j driver and the secret
    scanner stay unloaded."""
    from pathlib import Path

    ex = Path(__file__).resolve().parents[1] / "examples" / "acme"
    g = tmp_path / "g.json"
    built = subprocess.run([sys.executable, "-m", "graphkit.cli", "build", "--github-actions", str(ex / "repos"),
                            "--runners", str(ex / "inventory.yaml"), "--aws-iam", str(ex / "aws-iam.json"),
                            "-o", str(g)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    probe = f"""
import contextlib, io, sys
import graphkit.cli
sys.argv = ["graphkit", "blast-radius", "--graph", {str(g)!r}, "--from", "runner:acme/build-01-a", "--format", "json"]
out = io.StringIO()
try:
    with contextlib.redirect_stdout(out):
        graphkit.cli.app()
except SystemExit as e:
    assert e.code in (0, None), e.code
assert '"reached"' in out.getvalue()
from graphkit.analysis import kernel
heavy = ("scipy", "plotly", "neo4j", "detect_secrets") if kernel.AVAILABLE else ("plotly", "neo4j", "detect_secrets")
print("LOADED", sorted(m for m in heavy if m in sys.modules))
"""
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "LOADED []"
