"""Fixture cases and their golden outputs.  Regenerate every golden with ``python tests/regen_goldens.py``.

Usage (from the repository root, with the package installed)::

    python tests/regen_goldens.py            # every case under tests/fixtures/cases/
    python tests/regen_goldens.py corpus     # only the named cases

Then review ``git diff tests/fixtures`` before committing: a golden changes only when an output is meant to
change (say why in the commit message).

A *case* is a folder ``tests/fixtures/cases/<case>/`` holding a ``case.yaml``::

    description: what the case shows (one paragraph)
    inputs:                     # ingestor name -> paths, relative to the case folder
      github-actions: [repos]   # checkouts (folders named owner__repo) or a folder of them
      runners: [inventory.yaml] # runner inventories, host snapshots
      aws-iam: [aws-iam.json]   # get-account-authorization-details exports, policy files
    from:                       # blast-radius sources: one document each; a list is a union
      - runner:acme/build-01-a
      - [host:build-01, host:build-02]
    expected_org: [acme]        # optional: as `graphkit findings --expected-org`

plus the input files it names.  Inputs that live elsewhere are referenced by relative path, never copied: the
bundled example (``../../../../examples/acme/...``) and the shared corpus of real public files
(``../../../../../shared/corpus/...``, i.e. ``../shared/corpus`` from the repository root).  A case whose corpus
inputs are absent is skipped by the tests (a failure under ``GRAPHKIT_CI=1``) and left alone by this script.

Its goldens, in ``expected/``, are the documents the public API produces (the ones the CLI prints):

- ``graph-counts.json``: ``{inputs, sources, counts: {nodes, edges}, problems}`` of the build;
- ``findings.json``: the ``graphkit.findings/v1`` document (``graphkit findings --format json``);
- ``blast-radius.<source>.json``: the ``graphkit.blast-radius/v1`` document of each ``from`` entry
  (``graphkit blast-radius --from ... --format json``); ``<source>`` is :func:`slug` of the ids.

The build runs with the case folder as working directory and the paths exactly as ``case.yaml`` writes them,
so every path in an output is relative to the case folder: nothing depends on the machine.

Rule fixtures (``tests/fixtures/rules/<rule-id>/{positive,negative}/case.yaml``, see
``tests/test_rule_fixtures.py``) use the same format, plus ``expect`` in a positive fixture: a list of
``{subject, severity}`` findings of that rule the inputs must yield.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from graphkit.build import BuildResult, build_graph
from graphkit.findings import FindingOptions, findings_document, run_rules
from graphkit.graph import Graph
from graphkit.output import blast_radius_document

__all__ = ["REPO", "FIXTURES", "CASES", "RULE_FIXTURES", "CORPUS", "Case", "load_case", "case_folders",
           "missing_inputs", "needs_corpus", "build_case", "finding_options", "documents", "read_goldens",
           "dump", "slug", "write_goldens", "main"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
CASES = FIXTURES / "cases"
RULE_FIXTURES = FIXTURES / "rules"
#: The shared corpus of real public files, beside the repository (never copied into it).
CORPUS = REPO.parent / "shared" / "corpus"
EXPECTED = "expected"
_KEYS = {"description", "inputs", "from", "expected_org", "expect"}


@dataclass(frozen=True)
class Case:
    """One fixture case, as its ``case.yaml`` declares it.

    ``inputs``: ingestor name -> paths relative to ``folder``; ``sources``: the blast-radius source sets (each
    a list of node ids); ``expected_orgs``: ``--expected-org`` values; ``expect``: the findings a positive rule
    fixture must yield (``[{subject, severity}]``).
    """

    name: str
    folder: Path
    description: str
    inputs: dict[str, list[str]]
    sources: list[list[str]] = field(default_factory=list)
    expected_orgs: list[str] = field(default_factory=list)
    expect: list[dict[str, str]] = field(default_factory=list)


def load_case(folder: Path) -> Case:
    """Read ``folder/case.yaml``.

    Raises
    ------
    ValueError
        when the file is missing, has unknown keys, or a value has the wrong shape.
    """
    path = folder / "case.yaml"
    if not path.is_file():
        raise ValueError(f"{path}: missing (every fixture case folder has a case.yaml)")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown keys {unknown} (known: {sorted(_KEYS)})")
    inputs = data.get("inputs") or {}
    if not isinstance(inputs, dict) or not inputs or not all(isinstance(v, list) and v for v in inputs.values()):
        raise ValueError(f"{path}: inputs must map ingestor names to non-empty lists of paths")
    sources = [[s] if isinstance(s, str) else list(s) for s in data.get("from") or []]
    expect = list(data.get("expect") or [])
    if any(set(e) != {"subject", "severity"} for e in expect):
        raise ValueError(f"{path}: each expect entry is {{subject, severity}}")
    return Case(name=str(folder.relative_to(FIXTURES)), folder=folder, description=str(data.get("description", "")),
                inputs={k: [str(p) for p in v] for k, v in inputs.items()}, sources=sources,
                expected_orgs=[str(o) for o in data.get("expected_org") or []], expect=expect)


def case_folders(root: Path = CASES) -> list[Path]:
    """The case folders directly under ``root``, in name order."""
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def _absolute(case: Case, rel: str) -> Path:
    """An input path made absolute without resolving symbolic links (``../shared`` may be one)."""
    return Path(os.path.normpath(case.folder / rel))


def missing_inputs(case: Case) -> list[str]:
    """The input paths of ``case`` that do not exist, as written in its ``case.yaml``."""
    return [p for paths in case.inputs.values() for p in paths if not _absolute(case, p).exists()]


def needs_corpus(case: Case) -> bool:
    """True when some input of ``case`` lies in the shared corpus (:data:`CORPUS`)."""
    corpus = os.path.normpath(CORPUS)
    return any(str(_absolute(case, p)).startswith(corpus + os.sep) or str(_absolute(case, p)) == corpus
               for paths in case.inputs.values() for p in paths)


def case_graph(folder: Path) -> tuple[Case, Graph]:
    """The case of ``folder`` and its built graph, for the differential tests that replay the golden cases; the
    test is skipped when the case's inputs are absent (``tests/test_goldens.py`` requires them under CI)."""
    import pytest

    case = load_case(folder)
    if missing_inputs(case):
        pytest.skip(f"inputs of {case.name} absent")
    return case, build_case(case).graph


def build_case(case: Case) -> BuildResult:
    """Build the graph of ``case`` through :func:`graphkit.build.build_graph`, from its folder."""
    with contextlib.chdir(case.folder):
        return build_graph(case.inputs)


def finding_options(case: Case) -> FindingOptions:
    """The :class:`FindingOptions` the CLI builds from ``--expected-org`` (lower-cased)."""
    return FindingOptions(expected_orgs=frozenset(o.lower() for o in case.expected_orgs) or None)


def slug(sources: list[str]) -> str:
    """File-name part of a blast-radius golden: the ids joined by ``+``, runs of other characters as ``_``.

    >>> slug(["credential:build-01:/home/runner/.aws/credentials"])
    'credential_build-01_home_runner_.aws_credentials'
    >>> slug(["host:a", "host:b"])
    'host_a+host_b'
    """
    return "+".join(re.sub(r"[^A-Za-z0-9.-]+", "_", s).strip("_") for s in sources)


def documents(case: Case, result: BuildResult | None = None) -> dict[str, Any]:
    """Golden file name -> document, for ``case`` (built unless ``result`` is given).

    Raises
    ------
    ValueError
        when two ``from`` entries map to one file name.
    """
    result = result if result is not None else build_case(case)
    graph = result.graph
    docs: dict[str, Any] = {
        "graph-counts.json": {"inputs": graph.meta.inputs,
                              "sources": {k: v.model_dump(mode="json") for k, v in graph.meta.sources.items()},
                              "counts": graph.counts(), "problems": [p.as_dict() for p in result.problems]},
        "findings.json": findings_document(run_rules(graph, finding_options(case))),
    }
    for sources in case.sources:
        name = f"blast-radius.{slug(sources)}.json"
        if name in docs:
            raise ValueError(f"{case.name}: two 'from' entries are both written to {name}")
        docs[name] = blast_radius_document(graph, sources)
    return docs


def dump(document: Any) -> str:
    """The text of a golden file (one space indent, keys in document order, final newline)."""
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def read_goldens(case: Case) -> dict[str, Any]:
    """Golden file name -> document, as stored in ``case.folder/expected``."""
    folder = case.folder / EXPECTED
    if not folder.is_dir():
        return {}
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


def write_goldens(case: Case) -> list[str]:
    """Rewrite ``case.folder/expected`` (stale golden files removed); the file names written."""
    docs = documents(case)
    folder = case.folder / EXPECTED
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    for name, doc in docs.items():
        (folder / name).write_text(dump(doc), encoding="utf-8")
    return list(docs)


def main(argv: list[str]) -> int:
    """Rewrite the goldens of the named cases (default: all); 1 when a named case does not exist."""
    folders = case_folders()
    wanted = set(argv)
    unknown = sorted(wanted - {f.name for f in folders})
    if unknown:
        print(f"no such case: {', '.join(unknown)} (cases: {', '.join(f.name for f in folders)})", file=sys.stderr)
        return 1
    for folder in folders:
        if wanted and folder.name not in wanted:
            continue
        case = load_case(folder)
        missing = missing_inputs(case)
        if missing:
            print(f"{case.name}: left as is, inputs not present: {', '.join(missing)}", file=sys.stderr)
            continue
        names = write_goldens(case)
        print(f"{case.name}: wrote {len(names)} golden file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
