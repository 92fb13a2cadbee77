"""A regular (non-editable) install carries the query library and the schemas (issue 17, hand-offs and packaging).

Builds the wheel with pip (build isolation from the configured package index, as ``pip install -e`` does), installs
it with ``--no-deps`` into a fresh venv that reuses this environment's site-packages for the dependencies (no
network), and runs ``graphkit query`` (the library listing, no Neo4j needed) and the README Quickstart command from
a directory outside the repository.  Takes ~20-60 s; it runs with the suite (CI included).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.packaging


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"  # pip builds in the tree it is given: a copy keeps build/ out of the checkout
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in ("graphkit", "ingest", "queries", "schemas"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", src, cwd=tmp)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp / "dist").glob("graphkit-*.whl")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = Path(_run(py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=tmp).stdout.strip())
    # dependencies from this environment, appended after the fresh site-packages (the wheel's graphkit wins)
    (purelib / "zz-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    inst = _run(sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "-q", wheel, cwd=tmp)
    if inst.returncode:  # pip < 22.3 has no --python
        inst = _run(sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--prefix", env_dir, wheel, cwd=tmp)
    assert inst.returncode == 0, inst.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHKIT_QUERIES", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = tmp_path_factory.mktemp("elsewhere")
    return wheel, env_dir, env, work


def test_wheel_carries_queries_and_schemas(installed):
    wheel, *_ = installed
    names = zipfile.ZipFile(wheel).namelist()
    data = "graphkit-0.1.0.data/data/share/graphkit/"
    for f in (*(ROOT / "queries").glob("*.cypher"), ROOT / "queries" / "graphkit.grass"):
        assert f"{data}queries/{f.name}" in names
    for f in (ROOT / "queries" / "templates").glob("*.cypher"):
        assert f"{data}queries/templates/{f.name}" in names
    for f in (ROOT / "schemas").glob("*.json"):
        assert f"{data}schemas/{f.name}" in names


def test_installed_wheel_runs_query_and_quickstart_elsewhere(installed):
    _, env_dir, env, work = installed
    where = _run(env_dir / "bin" / "python", "-c", "import graphkit; print(graphkit.__file__)", cwd=work, env=env)
    assert where.stdout.strip().startswith(str(env_dir)), where.stdout + where.stderr
    listing = _run(env_dir / "bin" / "graphkit", "query", "--format", "json", cwd=work, env=env)
    assert listing.returncode == 0, listing.stderr[-2000:]
    assert "blast-radius-runner" in listing.stdout and "who-reaches" in listing.stdout
    ex = ROOT / "examples" / "acme"
    quick = _run(env_dir / "bin" / "graphkit", "blast-radius", "--github-actions", ex / "repos", "--runners",
                 ex / "inventory.yaml", "--aws-iam", ex / "aws-iam.json", "--from", "runner:acme/build-01-a",
                 "--format", "json", cwd=work, env=env)
    assert quick.returncode == 0, quick.stderr[-2000:]
    doc = json.loads(quick.stdout)
    # the same answer as from the source checkout (README Quickstart: 67 reached, plan of 24 revocations)
    here = _run(sys.executable, "-m", "graphkit.cli", *quick.args[1:], cwd=ROOT)
    assert here.returncode == 0, here.stderr[-2000:]
    assert doc["schema"] == "graphkit.blast-radius/v1" and doc["reached"] and doc["revocations"]
    assert doc == json.loads(here.stdout)


def test_wheel_carries_the_report_script(installed):
    """``graphkit report`` inlines ``graphkit/report/view.js`` (package data): a wheel without it writes no report."""
    wheel, *_ = installed
    assert "graphkit/report/view.js" in zipfile.ZipFile(wheel).namelist()
