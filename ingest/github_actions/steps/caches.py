"""Caches: jobs that write the repository's Actions cache, and jobs the cache restores into.

The Actions cache of a repository is one node (``cache:actions:{owner}/{repo}``,
of the repository whose workflows run): a job that writes it can poison what
later jobs restore (GitHub docs "Caching dependencies": a run restores
caches of its branch and of the default branch,
https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/caching-dependencies-to-speed-up-workflows#restrictions-for-accessing-a-cache).

- ``actions/cache`` writes and restores, ``/save`` writes, ``/restore`` restores;
- ``Swatinem/rust-cache`` writes and restores;
- ``actions/setup-*``, ``astral-sh/setup-uv``, ``ruby/setup-ruby`` with a
  cache flag (``cache``, ``enable-cache``, ``bundler-cache``) not empty or
  ``false`` write and restore;
- ``docker/build-push-action`` with ``cache-to``/``cache-from`` ``type=gha``
  writes/restores (:func:`gha_cache`, called by that rule).
"""

from __future__ import annotations

from graphkit.model import Cache, EdgeKind, Evidence, ids

from .base import StepRule, StepView

__all__ = ["ACTIONS_CACHE", "RUST_CACHE", "SETUP_CACHE", "cache_edges", "gha_cache"]


def _cache_node(sv: StepView) -> str:
    scope = sv.job.rk
    return sv.out.node(Cache(id=ids.cache_actions(scope), name=f"Actions cache of {sv.job.repo}",
                             cache_type="actions", scope=scope, evidence=[sv.ev("uses", sv.step.uses)]))


def cache_edges(sv: StepView, *, write: bool, restore: bool, ev: Evidence | None = None) -> None:
    """``writes_cache`` (job -> cache) and/or ``restores_into`` (cache -> job) edges."""
    ev = ev or sv.ev("uses", sv.step.uses)
    cid = _cache_node(sv)
    if write:
        sv.from_job(EdgeKind.WRITES_CACHE, cid, ev)
    if restore:
        sv.out.edge(EdgeKind.RESTORES_INTO, cid, sv.job.id, ev)


def gha_cache(sv: StepView, cache_to: str | None, cache_from: str | None) -> None:
    """BuildKit's ``type=gha`` cache exporter/importer (docker/build-push-action ``cache-to``/``cache-from``)."""
    write, restore = "type=gha" in (cache_to or ""), "type=gha" in (cache_from or "")
    if write or restore:
        ev = sv.ev("with", f"cache-to: {cache_to} cache-from: {cache_from}")
        cache_edges(sv, write=write, restore=restore, ev=ev)


def actions_cache(sv: StepView) -> None:
    """actions/cache (both), actions/cache/save (write), actions/cache/restore (restore)."""
    action = sv.action or ""
    cache_edges(sv, write=not action.endswith("/restore"), restore=not action.endswith("/save"))


def _flag_detail(flag: str) -> str:
    """Evidence detail of a cache flag: ``cache: <value>``, whichever input (``enable-cache``...) held it."""
    return ": ".join(("cache", flag))


def setup_cache(sv: StepView) -> None:
    """A setup action with its cache flag on."""
    flag = sv.arg("cache", "enable-cache", "bundler-cache")
    if flag is not None and flag.strip().lower() not in ("", "false"):
        cache_edges(sv, write=True, restore=True, ev=sv.ev("with", _flag_detail(flag)))


def rust_cache(sv: StepView) -> None:
    """Swatinem/rust-cache: always saves and restores."""
    cache_edges(sv, write=True, restore=True)


ACTIONS_CACHE = StepRule("actions-cache", actions_cache, "actions/cache save and restore",
                         actions=("actions/cache", "actions/cache/save", "actions/cache/restore"))
RUST_CACHE = StepRule("rust-cache", rust_cache, "Swatinem/rust-cache (always on)", actions=("swatinem/rust-cache",))
SETUP_CACHE = StepRule("setup-cache", setup_cache, "setup-* actions with their cache flag on",
                       actions=("astral-sh/setup-uv", "ruby/setup-ruby"), prefixes=("actions/setup-",))
