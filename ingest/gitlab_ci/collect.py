"""Find GitLab project checkouts and the configuration files their pipeline reads (the only I/O).

- A checkout is a folder holding ``.gitlab-ci.yml`` (the default CI/CD configuration file,
  https://docs.gitlab.com/ci/pipelines/settings/#specify-a-custom-cicd-configuration-file); a folder of
  checkouts is read one sub-folder each.
- Project path: ``GROUP/SUBGROUP/PROJECT=DIR`` or ``https://HOST/GROUP/PROJECT=DIR`` as given, else an
  ``owner__name`` folder (``a__b__c`` is ``a/b/c``), else the ``origin`` remote of ``.git/config`` (any host:
  its URL is the instance), else ``local/<folder>``.  The instance (the ``iss`` of the project's ID tokens) is
  ``https://gitlab.com`` unless a URL says otherwise.
- The files read are the root configuration and, following ``include: local`` (and the ``trigger: include``
  of child pipelines; each included file as its ``include: inputs`` make it, :mod:`.inputs`) as GitLab does (paths from the
  checkout root, ``*`` and ``**`` wildcards; https://docs.gitlab.com/ci/yaml/#includelocal), the local files
  it includes, at most :data:`MAX_INCLUDES` per project (GitLab's default limit of 150 includes per pipeline,
  https://docs.gitlab.com/ci/yaml/includes/#include-limits).  A local include outside the checkout, or that
  matches no file, is a problem naming the include's file, YAML path and line; an entry it matches that is not
  a regular file (a FIFO, a folder, a link to nothing, a link loop) is a problem naming that entry, never opened.
"""

from __future__ import annotations

import configparser
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from graphkit.errors import InputError
from graphkit.files import not_a_file
from graphkit.ingestor import InputFile, read_text

from .inputs import with_inputs
from .models import CIFile, Include, Project
from .parse import parse_config

__all__ = ["MAX_INCLUDES", "ROOT_FILE", "Checkout", "find_checkouts", "pipeline_files", "local_targets"]

MAX_INCLUDES = 150
ROOT_FILE = ".gitlab-ci.yml"

_NAMED = re.compile(r"^(?:(https?://[^/\s=]+)/)?([\w.-]+(?:/[\w.-]+)+)=(.+)$")
_REMOTE = re.compile(r"^(?:\w+://(?:[^@/]+@)?|[^@/\s]+@)([^/:\s]+)[:/]+(.+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class Checkout:
    """A project checkout: its :class:`~.models.Project` and root folder."""

    project: Project
    root: Path


def _remote(root: Path) -> tuple[str, str] | None:
    """``(instance URL, project path)`` of the ``origin`` remote of ``.git/config``, else None."""
    parser = configparser.ConfigParser(strict=False)
    try:
        parser.read(root / ".git" / "config", encoding="utf-8")
        m = _REMOTE.match(parser.get('remote "origin"', "url", fallback="").strip())
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    if m is None or "/" not in m.group(2):
        return None
    return f"https://{m.group(1).lower()}", m.group(2)


def _project_of(root: Path) -> Project:
    parts = [p for p in root.name.split("__") if p]
    if len(parts) >= 2:
        return Project("/".join(parts))
    remote = _remote(root)
    if remote is not None:
        return Project(remote[1], instance=remote[0])
    return Project(f"local/{root.name}", known=False)


def find_checkouts(paths: Sequence[Path | str]) -> tuple[list[Checkout], list[InputError]]:
    """Checkouts named by ``paths``: a checkout, a folder of checkouts, or ``PROJECT=DIR`` (I/O: lists folders).

    Returns
    -------
    tuple
        ``(checkouts, problems)``: a missing path, or one holding no ``.gitlab-ci.yml``, is a problem.
    """
    out: list[Checkout] = []
    problems: list[InputError] = []
    for raw in paths:
        text = str(raw)
        m = _NAMED.match(text)
        root = Path(m.group(3)) if m and not Path(text).exists() else Path(text)
        if not root.is_dir():
            problems.append(InputError(str(root), "", "not a directory" if root.exists() else "no such directory"))
            continue
        if m and not Path(text).exists():
            found = [Checkout(Project(m.group(2), instance=(m.group(1) or "https://gitlab.com").lower()), root)]
        elif (root / ROOT_FILE).is_file():
            found = [Checkout(_project_of(root.resolve()), root)]
        else:
            found = [Checkout(_project_of(p.resolve()), p) for p in sorted(root.iterdir())
                     if p.is_dir() and (p / ROOT_FILE).is_file()]
        for co in found:
            if not (co.root / ROOT_FILE).is_file():
                problems.append(InputError(str(co.root), "", f"no {ROOT_FILE} found"))
            elif _first_checkout(co, out, problems):
                out.append(co)
        if not found:
            problems.append(InputError(str(root), "", f"no {ROOT_FILE} found in it or its sub-folders"))
    return out, problems


def _first_checkout(co: Checkout, read: list[Checkout], problems: list[InputError]) -> bool:
    """True when ``co`` is the first checkout of its project (to be read).  Node ids are per project and file,
    and GitLab paths are case-insensitive (``GNOME/gtk`` is ``gnome/gtk``), so a second checkout of one project
    (another branch, another folder) would replace the first one's pipeline in silence: it is a problem naming
    both folders, never read.  The same folder given twice is read once."""
    key = (co.project.instance, co.project.path.lower())
    first = next((c for c in read if (c.project.instance, c.project.path.lower()) == key), None)
    if first is None:
        return True
    if first.root.resolve() != co.root.resolve():
        problems.append(InputError(str(co.root), "", (
            f"a second checkout of project {co.project.path} (paths are case-insensitive on GitLab; node ids are "
            f"per project and file): {first.root} is read, {co.root} is not; give one checkout per project")))
    return False


def local_targets(include: Include, files: Sequence[str]) -> list[str]:
    """The checkout files (relative posix paths in ``files``) a ``local`` include names: the path from the
    checkout root (leading ``/`` optional), or every match of its ``*`` / ``**`` wildcards (pure).

    >>> local_targets(Include("local", "/ci/*.yml", False, None), ["ci/a.yml", "ci/x/b.yml", "c.yml"])
    ['ci/a.yml']
    >>> local_targets(Include("local", "ci/**.yml", False, None), ["ci/a.yml", "ci/x/b.yml", "c.yml"])
    ['ci/a.yml', 'ci/x/b.yml']
    """
    want = include.target.strip().lstrip("/")
    if "*" not in want:
        return [want] if want in files else []
    rx = re.compile("".join(".*" if part == "**" else "[^/]*" if part == "*" else re.escape(part)
                            for part in re.split(r"(\*\*|\*)", want)) + r"\Z")
    return sorted(f for f in files if rx.match(f))


def _listing(root: Path) -> tuple[list[str], dict[str, str]]:
    """``(files, others)``: the checkout's ``*.y*ml`` regular files (or links to one), as sorted relative posix
    paths, and every other entry so named (relative path -> what it is, :func:`graphkit.files.not_a_file`: a
    FIFO, a folder, a link to nothing, a link loop...), found from ``stat`` alone: nothing is opened."""
    skip = {".git", "node_modules", "vendor", ".venv"}
    files, others = [], {}
    for p in root.rglob("*.y*ml"):
        rel = p.relative_to(root)
        if skip.intersection(rel.parts):
            continue
        kind = not_a_file(p)
        if kind is None:
            files.append(rel.as_posix())
        else:
            others[rel.as_posix()] = kind
    return sorted(files), others


def _exact(root: Path, include: Include) -> list[str]:
    """A local include naming one path (no wildcard) that the listing leaves out (it skips ``vendor``,
    ``node_modules``... folders, which GitLab does not): ``[path]`` when it is a regular file of the checkout
    (``stat`` only), else ``[]``."""
    want = include.target.strip().lstrip("/")
    if not want or "*" in want or not_a_file(root / want) is not None:
        return []
    return [want]


def pipeline_files(co: Checkout) -> tuple[list[str], list[InputError]]:
    """The root configuration and the local files it includes, transitively (breadth first, each once).

    Returns
    -------
    tuple
        ``(relative paths, problems)``; a file that cannot be read or parsed here is still listed (its
        problem is reported when it is parsed).
    """
    listing: tuple[list[str], dict[str, str]] | None = None
    order, problems = [ROOT_FILE], []
    queue: list[tuple[str, dict[str, Any] | None]] = [(ROOT_FILE, None)]
    seen: set[str] = {json.dumps([ROOT_FILE, None])}  # a file once per inputs it is included with
    cache: dict[str, CIFile | None] = {}
    named: set[str] = set()  # entries an include matches that are not files, each named once
    while queue:
        rel, given = queue.pop(0)
        if rel not in cache:
            try:
                cache[rel] = parse_config(read_text(co.root / rel, name=rel, within=co.root), file=rel,
                                          project=co.project)
            except InputError:
                cache[rel] = None
        if cache[rel] is None:
            continue
        parsed = with_inputs(cache[rel], given)  # type: ignore[arg-type]
        for inc in parsed.includes + parsed.children:
            if inc.kind != "local":
                continue
            if ".." in PurePosixPath(inc.target.lstrip("/")).parts:
                problems.append(InputError(str(co.root / rel), inc.evidence.yaml_path or "include",
                                           f"local include outside the checkout (line {inc.evidence.line})"))
                continue
            if listing is None:
                listing = _listing(co.root)
            targets = local_targets(inc, listing[0]) or _exact(co.root, inc)
            others = local_targets(inc, sorted(listing[1]))
            for t in others:  # never skipped in silence, never opened (graphkit.files)
                if t not in named:
                    named.add(t)
                    problems.append(InputError(str(co.root / t), "", f"{listing[1][t]}: not read"))
            if not targets and not others:
                problems.append(InputError(str(co.root / rel), inc.evidence.yaml_path or "include",
                                           f"local include {inc.target!r} matches no file of the checkout "
                                           f"(line {inc.evidence.line})"))
            for t in targets:
                key = json.dumps([t, inc.inputs], sort_keys=True, default=str)
                if key not in seen and len(seen) < MAX_INCLUDES:
                    seen.add(key)
                    queue.append((t, inc.inputs))
                    if t not in order:
                        order.append(t)
    return order, problems


def checkout_inputs(co: Checkout) -> tuple[list[InputFile], list[InputError]]:
    """:func:`pipeline_files` as :class:`~graphkit.ingestor.InputFile` (``context``: the project)."""
    rels, problems = pipeline_files(co)
    return [InputFile(path=co.root / r, name=r, root=co.root, context=co.project) for r in rels], problems
