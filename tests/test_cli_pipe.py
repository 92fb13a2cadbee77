"""Every command that prints exits quietly when the reader of its stdout closes early (``graphkit ... | head``):
status 141 (128 + SIGPIPE, as a shell reports for ``seq 1 100000 | head -1``), nothing on stderr, no traceback.

The commands run as the user runs them (``python -m graphkit``, a real pipe) on the bundled example and the
shared corpus.  A pipe whose read end is closed before the command starts makes every write fail, so the
result does not depend on timing; one test also reads a first line and then closes, as ``head -1`` does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require
from graphkit.build import build_graph
from graphkit.cli_common import EXIT_STDOUT_CLOSED, _quiet_when_stdout_closes

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme"
CORPUS_GHA = ROOT.parent / "shared" / "corpus" / "github-actions"
RUNNER = "runner:acme/build-01-a"


def _graphkit(args: list[str], stdout: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "graphkit", *args], stdout=stdout, stderr=subprocess.PIPE,
                          cwd=ROOT, env=env, timeout=300)


def _closed_stdout(args: list[str]) -> subprocess.CompletedProcess:
    """Run ``graphkit args`` with stdout a pipe whose reader has already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return _graphkit(args, write)
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("pipe")
    graph = tmp / "graph.json"
    build_graph({"github-actions": [EXAMPLE / "repos"], "runners": [EXAMPLE / "inventory.yaml"],
                 "aws-iam": [EXAMPLE / "aws-iam.json"]}).graph.save(graph)
    later = tmp / "inventory-later.yaml"  # a runner made ephemeral: a diff with rows
    later.write_text((EXAMPLE / "inventory.yaml").read_text(encoding="utf-8").replace(
        "ephemeral: false", "ephemeral: true"), encoding="utf-8")
    return {"graph": str(graph), "inventory": str(EXAMPLE / "inventory.yaml"), "later": str(later),
            "repos": str(EXAMPLE / "repos"), "tmp": str(tmp)}


#: (name, arguments) of every command that prints to stdout, tables and JSON; ``{key}`` are :func:`files`.
COMMANDS = [
    ("help", ["--help"]),
    ("version", ["--version"]),
    ("build", ["build", "--github-actions", "{repos}", "--runners", "{inventory}", "-o", "{tmp}/built.json"]),
    ("nodes-table", ["nodes", "--graph", "{graph}"]),
    ("nodes-json", ["nodes", "--graph", "{graph}", "--format", "json"]),
    ("blast-radius-table", ["blast-radius", "--graph", "{graph}", "--from", RUNNER]),
    ("blast-radius-json", ["blast-radius", "--graph", "{graph}", "--from", RUNNER, "--format", "json"]),
    ("findings-table", ["findings", "--graph", "{graph}"]),
    ("findings-sarif", ["findings", "--graph", "{graph}", "--format", "sarif"]),
    ("what-if-table", ["what-if", "--graph", "{graph}", "--from", RUNNER, "--ephemeral", RUNNER]),
    ("what-if-json", ["what-if", "--graph", "{graph}", "--from", RUNNER, "--ephemeral", RUNNER, "-f", "json"]),
    ("diff-table", ["diff", "{inventory}", "{later}"]),
    ("diff-json", ["diff", "{inventory}", "{later}", "--format", "json"]),
    ("export", ["export", "opengraph", "--graph", "{graph}"]),
    ("query-library", ["query"]),
    ("neo4j-help", ["neo4j", "--help"]),
]


@pytest.mark.parametrize("name,args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_closed_stdout_is_a_quiet_exit(name, args, files):
    # the command does print: with a reader, it succeeds with output
    args = [a.format(**files) for a in args]
    ok = _graphkit(args, subprocess.PIPE)
    assert ok.returncode == 0 and ok.stdout.strip(), (name, ok.returncode, ok.stderr[-500:])
    res = _closed_stdout(args)
    assert (res.returncode, res.stderr) == (EXIT_STDOUT_CLOSED, b""), name


def test_head_reading_one_line_of_the_corpus(tmp_path: Path):
    """``graphkit nodes --graph corpus.json | head -1``: the first line arrives, then a quiet exit (141 when a
    write met the closed pipe; 0 when the last write had already been accepted by the pipe)."""
    require(CORPUS_GHA.is_dir(), "shared corpus missing (../shared/corpus)", corpus=True)
    graph = tmp_path / "corpus.json"
    build_graph({"github-actions": [CORPUS_GHA]}).graph.save(graph)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for fmt in ("table", "json"):
        proc = subprocess.Popen([sys.executable, "-m", "graphkit", "nodes", "--graph", str(graph), "--format", fmt],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
        first = proc.stdout.readline()
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
        assert proc.wait(timeout=300) in (0, EXIT_STDOUT_CLOSED), (fmt, stderr[-500:])
        assert first.strip() and (stderr == b"" or re.fullmatch(rb"\d+ node\(s\)\n", stderr)), stderr[-500:]


def test_a_broken_pipe_elsewhere_is_not_swallowed():
    """A broken pipe that is not stdout's (a socket to an API) still raises: only stdout's reader may end a
    command quietly."""
    with pytest.raises(BrokenPipeError):
        with _quiet_when_stdout_closes():
            raise BrokenPipeError(32, "Broken pipe")
