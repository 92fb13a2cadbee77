"""Clear the outputs of notebooks before committing them: ``python notebooks/clear_outputs.py [FILE.ipynb ...]``
(default: every notebook beside this file).

Uses ``nbformat``, which ``pip install -e '.[test]'`` installs (as ``tests/test_notebooks.py`` does; Jupyter's
``nbconvert`` is not a dependency).  Each code cell loses its outputs and execution count; a notebook already
clear is left as it is.  Exit status 0, or 1 naming a file that cannot be read as a notebook.
"""

from __future__ import annotations

import sys
from pathlib import Path


def clear(path: Path) -> bool:
    """Clear ``path`` in place; True when it changed.

    Raises
    ------
    OSError, nbformat.reader.NotJSONError, nbformat.ValidationError
        when ``path`` cannot be read or written as a notebook.
    """
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count = [], None
            changed = True
    if changed:
        nbformat.write(nb, path)
    return changed


def main(argv: list[str]) -> int:
    """Clear each notebook of ``argv`` (default: every ``*.ipynb`` beside this file); 1 on the first failure."""
    paths = [Path(a) for a in argv] or sorted(Path(__file__).resolve().parent.glob("*.ipynb"))
    for path in paths:
        try:
            print(f"{path}: {'cleared' if clear(path) else 'already clear'}")
        except Exception as exc:  # noqa: BLE001 - any reason a file is not a notebook is reported the same way
            print(f"{path}: not cleared ({type(exc).__name__})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
