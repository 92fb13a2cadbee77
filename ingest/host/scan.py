"""Read-only access to a host's filesystem from a root directory: the host collector's only I/O.

:class:`HostScan` reads files and lists folders under a root standing for
``/`` (the live host, or a fake root in tests).  It never writes, never
follows a symbolic link out of the root, walks without following links,
skips files over :data:`MAX_FILE_BYTES`, and records what it could not read
as problems naming the file, never its content.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from graphkit.errors import InputError

__all__ = ["MAX_FILE_BYTES", "SKIP_DIRS", "HostScan", "home_of"]

#: Larger files are not read (a credential file is small; a huge file is not what we look for).
MAX_FILE_BYTES = 1 << 20
#: Folders never descended when looking for ``.runner`` (job data, big trees, other systems).
SKIP_DIRS = frozenset({"_work", "_diag", "_tool", "externals", "bin", "node_modules", ".git", ".cache", "docker",
                       "containerd", "containers", "snapd", "proc", "sys", "dev", ".npm", ".m2", ".gradle",
                       ".cargo", "go", "site-packages", "dist-packages"})


class HostScan:
    """Read-only access to a root directory: the collector's only I/O.

    Paths handed out are **host paths** (``/home/x``: absolute, relative to
    the root).  Nothing outside the root is ever read: a symbolic link is
    followed only when its target resolves inside the root; directories are
    walked without following links.

    Parameters
    ----------
    root
        the directory standing for ``/``.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.real = os.path.realpath(self.root)
        #: what could not be read (file and reason, never content)
        self.problems: list[InputError] = []

    def local(self, host_path: str) -> str:
        """Filesystem path of a host path."""
        return os.path.join(self.real, host_path.lstrip("/"))

    def inside(self, local: str) -> bool:
        """True when ``local`` resolves inside the root."""
        real = os.path.realpath(local)
        return real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)

    def lstat(self, host_path: str) -> os.stat_result | None:
        """``lstat`` of a host path, None when absent or unreadable."""
        try:
            return os.lstat(self.local(host_path))
        except OSError:
            return None

    def exists(self, host_path: str) -> bool:
        """The path exists inside the root (a link counts only if it stays inside)."""
        local = self.local(host_path)
        return os.path.lexists(local) and self.inside(local) and os.path.exists(local)

    def is_dir(self, host_path: str) -> bool:
        """A directory inside the root (links to directories inside the root count)."""
        local = self.local(host_path)
        return self.inside(local) and os.path.isdir(local)

    def read(self, host_path: str) -> bytes | None:
        """The bytes of a regular file inside the root, None otherwise (problems recorded, never content)."""
        local = self.local(host_path)
        if not os.path.lexists(local):
            return None
        if not self.inside(local):
            self.problems.append(InputError(host_path, "", "link out of the scanned root: not followed"))
            return None
        try:
            st = os.stat(local)
            if not stat.S_ISREG(st.st_mode):
                return None
            if st.st_size > MAX_FILE_BYTES:
                self.problems.append(InputError(host_path, "", f"larger than {MAX_FILE_BYTES} bytes: not read"))
                return None
            with open(local, "rb") as fh:
                return fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.problems.append(InputError(host_path, "", f"cannot read: {exc.strerror or type(exc).__name__}"))
            return None

    def listdir(self, host_path: str) -> list[str]:
        """Sorted entry names of a directory inside the root ([] otherwise)."""
        if not self.is_dir(host_path):
            return []
        try:
            return sorted(os.listdir(self.local(host_path)))
        except OSError:
            return []

    def walk_dirs(self, host_path: str, max_depth: int) -> Iterator[tuple[str, list[str]]]:
        """``(host dir, file names)`` below ``host_path`` (no links followed, :data:`SKIP_DIRS` skipped)."""
        start = self.local(host_path)
        if not os.path.isdir(start) or os.path.islink(start):
            return
        base_depth = start.rstrip(os.sep).count(os.sep)
        for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
            depth = dirpath.rstrip(os.sep).count(os.sep) - base_depth
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS) if depth < max_depth else []
            rel = os.path.relpath(dirpath, self.real)
            yield ("/" if rel == "." else "/" + rel.replace(os.sep, "/")), sorted(filenames)

    def world_readable(self, host_path: str, top: str) -> bool:
        """The file is readable by any user: ``o+r`` on it and ``o+x`` on each folder from ``top`` down."""
        st = self.lstat(host_path)
        if st is None or not st.st_mode & stat.S_IROTH:
            return False
        parent = str(PurePosixPath(host_path).parent)
        while True:
            dst = self.lstat(parent)
            if dst is None or not dst.st_mode & stat.S_IXOTH:
                return False
            if parent in (top, "/") or len(parent) <= len(top):
                return True
            parent = str(PurePosixPath(parent).parent)


def home_of(host_path: str) -> tuple[str, str] | None:
    """(home, user) of a host path under ``/root``, ``/home/USER`` or ``/Users/USER``; None elsewhere.

    >>> home_of("/home/runner/.aws/credentials"), home_of("/root/x"), home_of("/opt/actions-runner")
    (('/home/runner', 'runner'), ('/root', 'root'), None)
    """
    parts = PurePosixPath(host_path).parts
    if len(parts) >= 2 and parts[1] == "root":
        return "/root", "root"
    if len(parts) >= 3 and parts[1] in ("home", "Users"):
        return f"/{parts[1]}/{parts[2]}", parts[2]
    return None

