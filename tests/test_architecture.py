"""Import layers, checked statically (``ast``) over every source file of ``graphkit/`` and ``ingest/``.

graphkit is layered, lowest first::

    model < graph < semantics < analysis < outputs < cli

A module may import modules of its own layer or lower ones, never a higher one.  ``ingest`` sits beside the
core: its sources import graphkit (up to the semantics layer) and the shared ``ingest._*`` helpers, never each
other; graphkit never imports ``ingest`` (it reaches ingestors through the ``graphkit.registry`` entry points).

Every import counts, including those inside functions and under ``TYPE_CHECKING``.  The one exception is the
package facade ``graphkit/__init__.py``: its module-level imports must stay at the bottom (model, graph: it runs
before any submodule), while its lazy PEP 562 ``__getattr__`` re-exports (``graphkit.build_graph``,
``graphkit.blast_radius``) may reach any layer; importing the package itself (``from graphkit import
__version__``) is not a dependency on any layer, since Python has run it before any ``graphkit.x`` anyway.

The layer of a module is found by its longest dotted prefix in :data:`LAYERS`, so splitting a module into a
package keeps its layer (``graphkit.analysis.reach`` is in the analysis layer).  A module that no entry of
:data:`LAYERS` covers fails the test: add it to the map (deciding its layer) when you add it to the code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

MODEL, GRAPH, SEMANTICS, ANALYSIS, OUTPUTS, CLI = range(6)
LAYER_NAMES = ("model", "graph", "semantics", "analysis", "outputs", "cli")

#: Module or package (dotted, covers its submodules) -> layer.  Declared once; keep it complete.
LAYERS: dict[str, int] = {
    # errors and limits import nothing above them: the id constructors refuse an over-long value (IdTooLong, a
    # LimitExceeded) with the max_identifier_chars limit, so both sit in the model layer
    "graphkit.model": MODEL, "graphkit.redact": MODEL, "graphkit.errors": MODEL, "graphkit.limits": MODEL,
    "graphkit.graph": GRAPH, "graphkit.graph_file": GRAPH, "graphkit.storage": GRAPH, "graphkit.meta": GRAPH,
    "graphkit.ingestor": GRAPH, "graphkit.registry": GRAPH, "graphkit.files": GRAPH,
    "graphkit.resolve": SEMANTICS, "graphkit.cloud": SEMANTICS, "graphkit.iam": SEMANTICS,
    "graphkit.oidc": SEMANTICS, "graphkit.hosted": SEMANTICS, "graphkit.targets": SEMANTICS, "graphkit.refs": SEMANTICS,
    "graphkit.build": SEMANTICS, "graphkit.rules": SEMANTICS, "graphkit.findings": SEMANTICS,
    "graphkit.analysis": ANALYSIS, "graphkit.whatif": ANALYSIS,
    "graphkit.output": OUTPUTS, "graphkit.report": OUTPUTS, "graphkit.export": OUTPUTS, "graphkit.diff": OUTPUTS,
    "graphkit.docs": OUTPUTS, "graphkit.neo4j": OUTPUTS, "graphkit.synth": OUTPUTS,
    "graphkit.__main__": CLI, "graphkit.cli": CLI, "graphkit.cli_common": CLI, "graphkit.neo4j.cli": CLI, "graphkit.whatif_cli": CLI,
    "graphkit.cli_guard": CLI, "graphkit.synth_cli": CLI,
}
#: The package facade (``graphkit/__init__.py``): see the module docstring.
FACADE = "graphkit"
#: Highest layer the facade's module-level imports may reach.
FACADE_EAGER_MAX = GRAPH
#: Highest graphkit layer an ingest module may import.
INGEST_MAX = SEMANTICS
INGEST = "ingest"

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("graphkit", "ingest")


@dataclass(frozen=True)
class Import:
    """One static import: the importing module, the imported module (absolute), line, and whether it is inside a
    function (lazy)."""

    module: str
    target: str
    line: int
    lazy: bool


def module_name(path: Path, root: Path = REPO) -> str:
    """``graphkit/neo4j/cli.py`` -> ``graphkit.neo4j.cli``; ``graphkit/model/__init__.py`` -> ``graphkit.model``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files(root: Path = REPO) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of :data:`PACKAGES`."""
    return {module_name(p, root): p for pkg in PACKAGES for p in sorted((root / pkg).rglob("*.py"))}


def imports_of(module: str, tree: ast.AST, modules: set[str], is_package: bool = False) -> list[Import]:
    """The graphkit/ingest imports of ``module`` (``tree`` its parsed source), resolved to absolute module names.

    ``from pkg import name`` imports ``pkg.name`` when that is a module in ``modules``, else ``pkg`` itself.
    Relative imports are resolved against ``module`` (a package when ``is_package``).
    """
    out: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend(Import(module, a.name, child.lineno, lazy) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = module.split(".") if is_package else module.split(".")[:-1]
                    package = package[:len(package) - (child.level - 1)]
                    base = ".".join([*package, base] if base else package)
                for a in child.names:
                    full = f"{base}.{a.name}"
                    out.append(Import(module, full if full in modules else base, child.lineno, lazy))
            visit(child, inner)

    visit(tree, False)
    return [i for i in out if i.target.split(".")[0] in PACKAGES]


def layer_of(module: str) -> int | None:
    """The layer of a graphkit module by its longest prefix in :data:`LAYERS` (None when none covers it)."""
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len, default=None)
    return LAYERS[best] if best is not None else None


def _where(imp: Import, files: dict[str, Path]) -> str:
    return f"{files[imp.module].relative_to(REPO)}:{imp.line}: imports {imp.target}"


def violations(imp: Import, files: dict[str, Path]) -> list[str]:
    """Why ``imp`` breaks the layering ([] when it does not)."""
    where = _where(imp, files)
    src_pkg, dst_pkg = imp.module.split(".")[0], imp.target.split(".")[0]
    if dst_pkg == "graphkit" and imp.target != FACADE and layer_of(imp.target) is None:
        return [f"{where}: a module LAYERS does not cover (add it to the map in tests/test_architecture.py)"]
    if src_pkg == "graphkit" and dst_pkg == INGEST:
        return [f"{where}: graphkit never imports ingest (reach ingestors through graphkit.registry)"]
    if src_pkg == INGEST:
        return _ingest_violations(imp, where)
    if imp.target == FACADE:
        return []  # the package itself: already run before any submodule
    dst = layer_of(imp.target)
    assert dst is not None
    if imp.module == FACADE:
        if not imp.lazy and dst > FACADE_EAGER_MAX:
            return [f"{where}: the facade's module-level imports stay at or below {LAYER_NAMES[FACADE_EAGER_MAX]} "
                    f"(this is {LAYER_NAMES[dst]}; re-export it lazily in __getattr__)"]
        return []
    src = layer_of(imp.module)
    assert src is not None
    if dst > src:
        return [f"{where}: {LAYER_NAMES[src]} layer imports the higher {LAYER_NAMES[dst]} layer"]
    return []


#: Declared dependencies between sources: a collector may read the models of the input format it writes, and
#: the format's own checks of what it writes (the host collector checks every credential grant as the reader does).
#: ``graphkit collect host`` writes the runner inventory format (``graphkit.runner-inventory/v1``).
WRITES_FORMAT = {"ingest.host": ("ingest.runner_inventory.models", "ingest.runner_inventory.grants"),
                 "ingest.github_api": ("ingest.runner_inventory.models",)}  # graphkit collect github


def _ingest_violations(imp: Import, where: str) -> list[str]:
    if imp.target.startswith("graphkit"):
        dst = layer_of(imp.target) if imp.target != FACADE else MODEL
        if dst is not None and dst > INGEST_MAX:
            return [f"{where}: ingest imports graphkit up to the {LAYER_NAMES[INGEST_MAX]} layer, not "
                    f"{LAYER_NAMES[dst]}"]
        return []
    own, other = imp.module.split(".")[:2], imp.target.split(".")[:2]
    shared = len(other) < 2 or other[1].startswith("_")
    writes = imp.target in WRITES_FORMAT.get(".".join(own), ())
    if shared or own == other or writes:
        return []
    return [f"{where}: ingest sources are independent (move what both need to graphkit or a shared ingest._ "
            "module)"]


def _no_violations(title: str, found: list[str]) -> None:
    if found:
        pytest.fail(f"{title} ({len(found)}):\n" + "\n".join(found), pytrace=False)


@pytest.fixture(scope="module")
def graph_of_imports() -> tuple[dict[str, Path], list[Import]]:
    files = source_files()
    modules = set(files)
    found = []
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += imports_of(name, tree, modules, is_package=path.name == "__init__.py")
    return files, found


def test_layer_map_covers_every_module():
    unknown = [f"{p.relative_to(REPO)} ({m})" for m, p in source_files().items()
               if m.startswith("graphkit.") and layer_of(m) is None]
    assert unknown == [], "modules with no layer: add them to LAYERS in tests/test_architecture.py"


def test_layer_map_names_existing_modules():
    modules = set(source_files())
    stale = [k for k in LAYERS if not any(m == k or m.startswith(k + ".") for m in modules)]
    assert stale == [], "LAYERS entries that match no module (renamed or removed?)"


def test_graphkit_never_imports_ingest(graph_of_imports):
    files, found = graph_of_imports
    _no_violations("graphkit imports ingest", [_where(i, files) for i in found
                                                if i.module.startswith("graphkit") and i.target.startswith(INGEST)])


def test_imports_follow_the_layers(graph_of_imports):
    files, found = graph_of_imports
    _no_violations("layering violations", [v for i in found if i.module.startswith("graphkit")
                                           for v in violations(i, files)])


def test_ingest_depends_on_graphkit_only(graph_of_imports):
    files, found = graph_of_imports
    _no_violations("ingest violations", [v for i in found if i.module.startswith(INGEST)
                                         for v in violations(i, files)])


def test_import_reader_resolves_relative_lazy_and_submodule_imports():
    src = ("from . import ids\nfrom .node import Node\nimport graphkit.graph as g\nimport json\n"
           "from graphkit import __version__, registry\n"
           "def f():\n    from graphkit.analysis import blast_radius\n    from ingest import _yaml\n")
    modules = {"graphkit", "graphkit.model", "graphkit.model.ids", "graphkit.model.node", "graphkit.registry",
               "ingest._yaml"}
    got = [(i.target, i.line, i.lazy) for i in imports_of("graphkit.model.nodes", ast.parse(src), modules)]
    assert got == [("graphkit.model.ids", 1, False), ("graphkit.model.node", 2, False), ("graphkit.graph", 3, False),
                   ("graphkit", 5, False), ("graphkit.registry", 5, False), ("graphkit.analysis", 7, True),
                   ("ingest._yaml", 8, True)]
    files = {"graphkit.model.nodes": REPO / "graphkit/model/nodes.py"}
    up = Import("graphkit.model.nodes", "graphkit.analysis", 7, True)
    assert violations(up, files) == ["graphkit/model/nodes.py:7: imports graphkit.analysis: model layer imports the "
                                     "higher analysis layer"]
    assert layer_of("graphkit.analysis.reach") == ANALYSIS and layer_of("graphkit.neo4j.cli") == CLI
    assert layer_of("graphkit.neo4j.sync") == OUTPUTS and layer_of("graphkit.clinic") is None
