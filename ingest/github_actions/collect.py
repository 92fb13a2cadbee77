"""Find repository checkouts and the workflow and action files GitHub reads in them (the only I/O).

- Only ``<checkout>/.github/workflows/*.yml|yaml`` are workflows: GitHub reads
  no other place (not sub-folders, not nested ``examples/**/.github``).
- Repository names: ``owner/name=PATH`` as given, else an ``owner__name``
  folder, else the ``origin`` remote of ``.git/config``, else
  ``local/<folder>`` (a real checkout with no owner information: its nodes are
  ``org:local`` and ``repo:local/<folder>``).
- A folder is a checkout when it has ``.github/``, ``.git``, a root
  ``action.yml`` or an ``owner__name`` name; in a folder of checkouts every
  sub-folder is a checkout, so a repository holding only composite actions in
  sub-folders (``setup/action.yml``) is read as one repository, never split
  into one per action nor skipped.  A path holding no
  ``.github/workflows/*.yml|yaml`` and no ``action.yml`` is a problem naming it,
  never a ``local/...`` repository.
- One checkout per repository (owner and name case-insensitive): a second one
  is a problem naming both folders, never merged into the first
  (:func:`_first_checkout`).
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graphkit.errors import InputError

__all__ = ["Checkout", "checkout_files", "checkouts_and_files", "find_checkouts"]

_GIT_REMOTE = re.compile(r"github\.com[:/]+([^/\s]+)/([^/\s]+?)(?:\.git)?/?$")
_NAMED = re.compile(r"^([\w.-]+/[\w.-]+)=(.+)$")
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "vendor"})


@dataclass(frozen=True)
class Checkout:
    """A repository checkout: display name ``owner/name`` and its root folder."""

    repository: str
    root: Path


def _is_checkout(path: Path) -> bool:
    """A repository root: ``.github/``, ``.git``, a root ``action.yml``, or an ``owner__name`` folder."""
    owner, _, name = path.name.partition("__")
    return ((path / ".github").is_dir() or (path / ".git").exists() or (path / "action.yml").is_file()
            or (path / "action.yaml").is_file() or bool(owner and name))


def _remote_name(config: Path) -> str | None:
    """``owner/name`` of the ``origin`` remote in a ``.git/config`` on github.com, else None."""
    parser = configparser.ConfigParser(strict=False)
    try:
        parser.read(config, encoding="utf-8")
        m = _GIT_REMOTE.search(parser.get('remote "origin"', "url", fallback=""))
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    return f"{m.group(1)}/{m.group(2)}" if m else None


def _repository_name(root: Path) -> str:
    if "__" in root.name:
        owner, name = root.name.split("__", 1)
        if owner and name:
            return f"{owner}/{name}"
    config = root / ".git" / "config"
    remote = _remote_name(config) if config.is_file() else None
    return remote or f"local/{root.name}"


def _checkouts_at(text: str) -> list[Checkout | InputError] | InputError:
    """The checkouts one command-line path names (itself, its sub-folders, or ``owner/name=PATH``); a sub-folder
    linking out of the folder is a problem in their place."""
    m = _NAMED.match(text)
    given, root = (m.group(1), Path(m.group(2))) if m and not Path(text).exists() else (None, Path(text))
    if not root.is_dir():
        return InputError(str(root), "", "not a directory" if root.exists() else "no such directory")
    if given or _is_checkout(root):
        return [Checkout(given or _repository_name(root.resolve()), root)]
    subs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in _SKIP_DIRS)
    if not any(_is_checkout(p) for p in subs):
        return [Checkout(_repository_name(root.resolve()), root)]
    # a folder of checkouts: every sub-folder is one, even one holding only (nested) composite actions; one
    # holding no workflow or action file is reported by find_checkouts, never skipped silently.  A sub-folder
    # that is a link out of the folder is not followed (as a file linked out of a checkout is not read)
    inside = root.resolve()
    return [Checkout(_repository_name(real), p) if real.is_relative_to(inside)
            else InputError(str(p), "", "a symbolic link to a folder outside its input folder: not followed")
            for p in subs for real in (p.resolve(),)]


def find_checkouts(paths: Sequence[Path | str]) -> tuple[list[Checkout], list[InputError]]:
    """Checkouts named by ``paths`` (I/O: lists folders).

    Each path is a checkout, a folder of checkouts, or ``owner/name=PATH``.
    The repository name is the given one, else ``owner__name`` of the folder,
    else the ``origin`` remote of ``.git/config``, else ``local/<folder>``.

    Returns
    -------
    tuple
        ``(checkouts, problems)``: a missing path, or a checkout (or given
        path) with no workflow and no action file, is a problem naming the
        path, not an exception and not a checkout (no ``local/...`` nodes are
        invented for it).
    """
    found, problems = checkouts_and_files(paths)
    return [co for co, _ in found], problems


def checkouts_and_files(paths: Sequence[Path | str]) -> tuple[list[tuple[Checkout, list[tuple[str, str]]]],
                                                             list[InputError]]:
    """:func:`find_checkouts` with the :func:`checkout_files` of each checkout (listed once: the test that a
    checkout holds any file lists them)."""
    out: list[tuple[Checkout, list[tuple[str, str]]]] = []
    problems: list[InputError] = []
    seen: dict[str, Checkout] = {}  # repository node id -> the checkout read for it
    for raw in paths:
        found = _checkouts_at(str(raw))
        if isinstance(found, InputError):
            problems.append(found)
            continue
        for co in found:
            if isinstance(co, InputError):
                problems.append(co)
                continue
            if not _first_checkout(co, seen, problems):
                continue
            files = checkout_files(co, problems)
            if files:
                out.append((co, files))
            else:
                problems.append(InputError(str(co.root), "", "no .github/workflows/*.yml|yaml or action.yml "
                                           f"found under {co.root}"))
    return out, problems


def _first_checkout(co: Checkout, seen: dict[str, Checkout], problems: list[InputError]) -> bool:
    """True when ``co`` is the first checkout of its repository (to be read).

    Node ids are per repository and workflow path (:func:`graphkit.model.ids.workflow`), and owner and name are
    case-insensitive on GitHub (https://docs.github.com/en/repositories/creating-and-managing-repositories/
    about-repositories: "repository names are not case-sensitive"), so two checkouts of one repository (two
    branches, ``Acme__App`` and ``acme__app``) would merge their jobs into one node each and lose one checkout's
    secrets and permissions: the later one is a problem naming both folders, never read.  The same folder given
    twice is read once (nothing is lost).
    """
    from graphkit.model import ids

    key = ids.repository(co.repository)
    first = seen.setdefault(key, co)
    if first is co:
        return True
    if first.root.resolve() != co.root.resolve():
        problems.append(InputError(str(co.root), "", (
            f"a second checkout of repository {co.repository} (owner and name are case-insensitive on GitHub; "
            f"node ids are per repository and workflow path): {first.root} is read, {co.root} is not; give one "
            "checkout per repository")))
    return False


def checkout_files(checkout: Checkout, problems: list[InputError] | None = None) -> list[tuple[str, str]]:
    """``(relative posix path, "workflow" | "action")`` of the files to read, sorted.

    Workflows: ``.github/workflows/*.yml|yaml`` only (GitHub does not recurse); an entry so named that is not a
    file (a FIFO, a folder, a link to a folder or to nothing: :func:`graphkit.files.regular_files`, never
    opened) is a problem appended to ``problems``, naming it.
    Actions: ``action.yml|yaml`` anywhere except ``.git``/``node_modules``/``.venv``/``vendor``.
    """
    from graphkit.files import regular_files

    root = checkout.root
    found: list[tuple[str, str]] = []
    wdir = root / ".github" / "workflows"
    if wdir.is_dir():
        paths, skipped = regular_files(wdir, lambda n: n.endswith((".yml", ".yaml")) and n not in (".yml", ".yaml"))
        found += [(p.relative_to(root).as_posix(), "workflow") for p in paths]
        if problems is not None:
            problems += skipped
    for p in sorted(root.rglob("action.y*ml")):
        rel = p.relative_to(root)
        if p.name in ("action.yml", "action.yaml") and not _SKIP_DIRS.intersection(rel.parts[:-1]):
            found.append((rel.as_posix(), "action"))
    return found
