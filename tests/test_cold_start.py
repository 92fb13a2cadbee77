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
