"""Shared fixtures and the skip policy.

``bolt``: the Bolt server of the Neo4j tests (see ``tests/bolt_server.py``).

Skip policy: a test that cannot run because a dependency or the shared corpus is missing calls
:func:`require` (or carries ``@pytest.mark.requires(condition, reason=...)``).  Locally it is skipped, with the
reason; under ``GRAPHKIT_CI=1`` (set by the CI script) a missing dependency *fails* instead, so that a missing
install step can never turn CI green by skipping.  The shared corpus is data beside the checkout, not something
the CI script installs: a test that needs it (``corpus=True``) fails under CI only when ``GRAPHKIT_REQUIRE_CORPUS=1``,
which the CI script sets when ``../shared/corpus`` is there (so every corpus test must then run).
"""

from __future__ import annotations

import os

import pytest

from bolt_server import arcadedb_available, server_settings

#: Environment variable that turns a missing requirement into a failure (the CI script sets it to ``1``).
CI_VARIABLE = "GRAPHKIT_CI"
#: Environment variable that makes a missing corpus a failure under :data:`CI_VARIABLE` too.
CORPUS_VARIABLE = "GRAPHKIT_REQUIRE_CORPUS"


def strict() -> bool:
    """True when missing requirements must fail (``GRAPHKIT_CI=1``)."""
    return os.environ.get(CI_VARIABLE) == "1"


def require(condition: object, reason: str, *, allow_module_level: bool = False, corpus: bool = False) -> None:
    """Go on when ``condition`` holds; else skip the test (locally) or fail it (under ``GRAPHKIT_CI=1``).

    Parameters
    ----------
    condition
        truthy when the dependency (package, program, corpus) is present.
    reason
        what is missing and how to get it, e.g. ``"chromium not installed (apt-get install -y chromium)"``.
    allow_module_level
        as for :func:`pytest.skip`: call it at module level to skip a whole module.
    corpus
        the requirement is the shared corpus: strict only when ``GRAPHKIT_REQUIRE_CORPUS=1`` as well.

    Raises
    ------
    pytest.skip.Exception
        when ``condition`` is falsy and ``GRAPHKIT_CI`` is not ``1``.
    pytest.fail.Exception
        when ``condition`` is falsy and ``GRAPHKIT_CI=1``.
    """
    if condition:
        return
    if strict() and (not corpus or os.environ.get(CORPUS_VARIABLE) == "1"):
        pytest.fail(f"{reason} [{CI_VARIABLE}=1: a missing requirement fails instead of skipping]", pytrace=False)
    pytest.skip(reason, allow_module_level=allow_module_level)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requires(condition, reason): run only when condition holds; skipped "
                            f"otherwise, failed under {CI_VARIABLE}=1 (see tests/conftest.py: require)")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Apply ``@pytest.mark.requires(condition, reason=...)`` through :func:`require`."""
    for mark in item.iter_markers("requires"):
        condition = mark.args[0] if mark.args else mark.kwargs["condition"]
        reason = mark.args[1] if len(mark.args) > 1 else mark.kwargs["reason"]
        require(condition, reason, corpus=mark.kwargs.get("corpus", False))


@pytest.fixture(scope="session")
def bolt():
    """Connection settings ``{uri, user, password, database, engine}`` of a real Bolt server for the session.

    ArcadeDB started on free loopback ports (stopped at the end), or the Neo4j named by ``NEO4J_URI``.
    """
    require(os.environ.get("NEO4J_URI") or arcadedb_available(),
            "no Bolt server: arcadedb-embedded is not installed (pip install -e '.[test]') and NEO4J_URI is not set")
    with server_settings() as settings:
        yield settings


def workflows_graph(tmp_path, files: dict[str, str]):
    """The graph built from one repository ``o/r`` holding ``files`` (path inside the checkout -> text), read as
    GitHub Actions workflows and actions; the build must report no problem."""
    from graphkit.build import build_graph

    root = tmp_path / "repos" / "o__r"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    res = build_graph({"github-actions": [tmp_path / "repos"]})
    assert res.problems == []
    return res.graph
