"""What the host collector's steps found, before the snapshot is written, and the guard around hostile parses.

:func:`guarded` runs a pure parser on a file's text and turns any way a hostile
file can make it fail (malformed, nested too deeply for the parser's recursion,
too large for memory) into one problem naming the file, never its content, so
that one planted file never stops the scan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphkit.errors import InputError
from ingest.host.scan import HostScan

__all__ = ["Cred", "Found", "Home", "Install", "guarded", "home_cred"]

#: ``(home folder, user)``
Home = tuple[str, str]
T = TypeVar("T")


@dataclass
class Install:
    """A runner registration found on disk (before output).

    ``directory``: the GitHub runner folder; ``config``: a GitLab runner's
    ``config.toml``; ``folders``: what a starter must name to start it (the
    folder, or the ``config.toml`` and its folder).
    """

    key: str                      # scope/name
    entry: dict[str, Any]         # the inventory runner entry
    user: str | None
    directory: str | None
    config: str | None = None

    @property
    def folders(self) -> list[str]:
        """Paths whose mention in a unit, crontab or profile starts this registration."""
        if self.directory:
            return [self.directory]
        return [p for p in (self.config, self.config.rpartition("/")[0] if self.config else None) if p]

    @property
    def registration(self) -> dict[str, Any]:
        """The entry's ``registration`` mapping (created on first use)."""
        return self.entry.setdefault("registration", {})


@dataclass
class Cred:
    """A credential file found (before output): its inventory entry (without ``readable_by``), the home whose
    user owns it (None: unknown), and the folder from which world-readability is checked."""

    entry: dict[str, Any]
    owner: Home | None
    top: str


@dataclass
class Found:
    """What the steps found, in the order found."""

    installs: list[Install] = field(default_factory=list)
    creds: list[Cred] = field(default_factory=list)
    caches: list[dict[str, Any]] = field(default_factory=list)
    #: folders with runner binaries or credentials but no ``.runner``
    orphans: list[str] = field(default_factory=list)
    #: ``cosign.key`` files the signature search found
    cosign_keys: list[str] = field(default_factory=list)
    #: live runner processes (``ScanProcess`` entries)
    processes: list[dict[str, Any]] = field(default_factory=list)

    def cache(self, path: str, kind: str, reader: str | None = None) -> None:
        """Record a shared cache folder (or socket, or job hook); ``reader``: the folder of the one runner whose
        jobs execute from it (None: every runner of the host)."""
        self.caches.append({"path": path, "kind": kind, "reader": reader})


def home_cred(ctype: str, path: str, fp: str, access: list[str], grants: list[tuple[str, str]], home: str,
              user: str | None, url_credential: str | None = None) -> Cred:
    """A user's credential file that lasts until rotated; ``grants`` are ``(edge kind, node id)`` pairs;
    ``url_credential``: keyed hash of a credential removed from a URL the file names."""
    entry = {"credential_type": ctype, "path": path, "fingerprint": fp, "lifetime": "until_rotated",
             "access": list(dict.fromkeys(access)),
             "grants": [{"access": a, "target": t} for a, t in dict.fromkeys(grants)]}
    if url_credential:
        entry["url_credential_fingerprint"] = url_credential
    return Cred(entry, (home, user) if user is not None else None, home)


def guarded(scan: HostScan, path: str, parse: Callable[[], T], what: str = "skipped", *,
            own_reasons: bool = False) -> T | None:
    """``parse()``, or None with a problem on ``path`` when the file makes it fail.

    ``InputError`` is kept as the parser raised it (it names file and place);
    ``ValueError`` (malformed; its message kept only with ``own_reasons``, for
    parsers whose messages name no content), ``RecursionError`` (nested too
    deeply), ``MemoryError`` and ``UnicodeError`` become a problem with a
    reason that names no content.

    >>> import json
    >>> s = HostScan(".")
    >>> guarded(s, "/x.json", lambda: json.loads("[" * 100_000 + "]" * 100_000)), s.problems[0].reason
    (None, 'nested too deeply: skipped')
    """
    try:
        return parse()
    except InputError as exc:
        scan.problems.append(exc)
    except RecursionError:
        scan.problems.append(InputError(path, "", f"nested too deeply: {what}"))
    except MemoryError:
        scan.problems.append(InputError(path, "", f"too large to parse: {what}"))
    except UnicodeError:
        scan.problems.append(InputError(path, "", f"malformed: {what}"))
    except ValueError as exc:
        scan.problems.append(InputError(path, "", f"{exc if own_reasons else 'malformed'}: {what}"))
    return None
