"""Every notebook under ``notebooks/`` runs top to bottom on a fresh kernel, and is committed without outputs.

The kernel is a throw-away kernel spec written by a fixture into a temporary
``JUPYTER_PATH`` entry (which jupyter_client searches first), running
ipykernel with the interpreter running the tests (``sys.executable``): a fresh
clone with ``pip install -e '.[test]'`` needs no ``ipykernel install`` step,
and a ``python3`` kernel registered elsewhere on the machine cannot be picked
up by mistake.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "graphkit-test"


@pytest.fixture
def kernel(tmp_path, monkeypatch) -> str:
    """A kernel spec for this interpreter, found before any other (``JUPYTER_PATH`` comes first)."""
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "graphkit tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join([str(tmp_path / "jupyter"), os.environ.get("JUPYTER_PATH", "")]))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # debugpy's frozen-modules warning on stderr
    return KERNEL


def test_the_two_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {"01-explore.ipynb", "02-what-if.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_outputs_are_stripped(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, \
                f"{path.name}: strip outputs before committing (python notebooks/clear_outputs.py)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_clean(path, kernel):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name=kernel, timeout=300, allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    stderr = [o["text"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and o.get("name") == "stderr"]
    assert not any("Traceback" in s or "Warning" in s for s in stderr), stderr


def test_clear_outputs_script_strips_an_executed_notebook(tmp_path, kernel):
    """The command notebooks/README.md gives clears what a run wrote, with what ``.[test]`` installs."""
    import subprocess

    path = tmp_path / "nb.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    NotebookClient(nb, kernel_name=kernel, timeout=120).execute()
    assert nb.cells[0].outputs and nb.cells[0].execution_count == 1
    nbformat.write(nb, path)
    script = ROOT / "notebooks" / "clear_outputs.py"
    assert "python notebooks/clear_outputs.py" in (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    res = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=False)
    assert res.returncode == 0 and "cleared" in res.stdout, res.stderr
    cell = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
    assert cell["outputs"] == [] and cell["execution_count"] is None
    res = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=False)
    assert res.stdout.strip().endswith("already clear")
    (tmp_path / "bad.ipynb").write_text("not json")
    res = subprocess.run([sys.executable, str(script), str(tmp_path / "bad.ipynb")], capture_output=True, text=True,
                         check=False)
    assert res.returncode == 1 and "bad.ipynb: not cleared" in res.stderr
