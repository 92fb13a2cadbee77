"""Read-only access to a host's filesystem from a root directory: the host collector's only I/O.

:class:`HostScan` reads files and lists folders under a root standing for
``/`` (the live host, or a fake root in tests).  It never writes, never
executes, never follows a symbolic link out of the root, walks without
following links, opens only regular files (never a FIFO, device or socket,
which could block or never end), skips files over
:attr:`ScanLimits.max_file_bytes`, and records what it could not read as
problems naming the file, never its content.

:meth:`HostScan.search` walks the whole root for runner signatures, bounded in
entries, depth and time (:class:`ScanLimits`); every directory it did not
enter is recorded with the reason (:attr:`HostScan.skipped`): a pseudo
filesystem, package or VCS data, unreadable, depth limit, entry or time limit.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from graphkit.errors import InputError

__all__ = ["MAX_FILE_BYTES", "PRUNED_NAMES", "PSEUDO_FS", "HostScan", "ScanLimits", "home_of"]

#: Larger files are not read (a credential file is small; a huge file is not what we look for).
MAX_FILE_BYTES = 1 << 20
#: Pseudo filesystems the signature search does not enter (``/proc`` is read apart, for processes), and
#: every folder of ``/dev`` but ``/dev/shm`` (a real tmpfs where files hide, so it is searched).
PSEUDO_FS = ("/proc", "/sys", "/dev")
#: Folder names the signature search does not enter: package and VCS data (reported, never silently).
PRUNED_NAMES = frozenset({"node_modules", ".git", "__pycache__", "site-packages", "dist-packages"})
#: At most this many names of one folder are listed by :meth:`HostScan.listdir` (homes, unit folders, ``/proc``).
MAX_LISTED_NAMES = 100_000
#: At most this many skipped folders are listed (every one is counted).
MAX_LISTED_SKIPS = 200

_OUT = "link out of the scanned root: not followed"
_KIND = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


@dataclass(frozen=True)
class ScanLimits:
    """Bounds of a host scan (all configurable: ``graphkit collect host --max-entries ...``).

    ``max_entries``: directory entries the signature search visits;
    ``max_depth``: folder depth below ``/``; ``max_seconds``: wall time of the
    search; ``max_file_bytes``: larger files are not read.
    """

    max_entries: int = 2_000_000
    max_depth: int = 32
    max_seconds: float = 600.0
    max_file_bytes: int = MAX_FILE_BYTES


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

    def __init__(self, root: Path, limits: ScanLimits | None = None) -> None:
        self.root = Path(root)
        self.real = os.path.realpath(self.root)
        self.limits = limits or ScanLimits()
        #: what could not be read (file and reason, never content)
        self.problems: list[InputError] = []
        #: folders the search did not enter: ``(host path, reason)``, the first :data:`MAX_LISTED_SKIPS`
        self.skipped: list[tuple[str, str]] = []
        #: every skipped folder counted by reason
        self.skip_counts: Counter[str] = Counter()
        #: host paths this user could not read (permission denied)
        self.unreadable: list[str] = []
        #: directory entries the search visited
        self.entries = 0
        #: the real local paths of the files read (``collect host -o`` never replaces one)
        self.files_read: set[str] = set()

    def local(self, host_path: str) -> str:
        """Filesystem path of a host path."""
        return os.path.join(self.real, host_path.lstrip("/"))

    def host_path(self, path: str) -> str:
        """A path as the host sees it: one written with the scanned root's own prefix (a runner configured while
        its disk was mounted at the root) loses it, so snapshot and inventory name the same file alike.

        >>> HostScan(Path("/mnt/img")).host_path("/mnt/img/opt/ar/_work"), HostScan(Path("/")).host_path("/opt")
        ('/opt/ar/_work', '/opt')
        """
        for prefix in dict.fromkeys((self.real.rstrip(os.sep), os.path.abspath(self.root).rstrip(os.sep))):
            if prefix and (path == prefix or path.startswith(prefix + "/")):
                return path[len(prefix):] or "/"
        return path

    def inside(self, local: str) -> bool:
        """True when ``local`` resolves inside the root."""
        real = os.path.realpath(local)
        return real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)

    def resolve(self, host_path: str) -> tuple[str | None, str | None]:
        """``(filesystem path, None)`` of a host path with its links followed **as the host would**: an absolute
        link target is taken from the root (``/lib/systemd/system/x`` in a mounted image is the image's), ``..``
        stops at the root, so nothing out of the root is ever reached; ``(None, reason)`` for a link loop
        (more than 40 links, as Linux's ``ELOOP``) or a link out of the root: one whose absolute target exists on
        the scanning machine (a naive reader would read the scanning machine's file; when the root is ``/`` none
        is), or whose ``..`` climbs above the root.  Both are what a planted link looks like; an image's own
        absolute links (targets that exist only inside it) are followed inside it.

        >>> HostScan(Path("/")).resolve("/")
        ('/', None)
        """
        todo = list(reversed(PurePosixPath("/" + host_path.lstrip("/")).parts[1:]))
        done: list[str] = []
        links = 0
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":
                if not done and links:  # a link climbing above the root: out of it on the scanning machine
                    return None, _OUT
                done = done[:-1]
                continue
            local = os.path.join(self.real, *done, name)
            if not os.path.islink(local):
                done.append(name)
                continue
            links += 1
            if links > 40:
                return None, "link loop: not followed"
            target = os.readlink(local)
            if target.startswith("/"):
                if self.real != os.sep and os.path.lexists(target):  # followed naively, it leaves the root
                    return None, _OUT
                done = []
            todo.extend(reversed(PurePosixPath(target).parts[1:] if target.startswith("/") else
                                 PurePosixPath(target).parts))
        return os.path.join(self.real, *done), None

    def canonical(self, host_path: str) -> str | None:
        """The host path of ``host_path`` with every link followed inside the root as the host would
        (:meth:`resolve`): ``/opt/actions-runner`` linked to ``/srv/ar`` is ``/srv/ar``; None for a link loop or a
        link out of the root.

        >>> HostScan(Path("/")).canonical("/")
        '/'
        """
        local, _ = self.resolve(host_path)
        if local is None:
            return None
        rel = os.path.relpath(local, self.real).replace(os.sep, "/")
        return "/" if rel == "." else "/" + rel

    def lstat(self, host_path: str) -> os.stat_result | None:
        """``lstat`` of a host path, None when absent or unreadable."""
        try:
            return os.lstat(self.local(host_path))
        except OSError:
            return None

    def exists(self, host_path: str) -> bool:
        """The path exists inside the root (links followed as the host would: :meth:`resolve`)."""
        local, _ = self.resolve(host_path)
        return local is not None and os.path.exists(local)

    def is_dir(self, host_path: str) -> bool:
        """A directory inside the root (links followed as the host would: :meth:`resolve`)."""
        local, _ = self.resolve(host_path)
        return local is not None and os.path.isdir(local)

    def denied(self, host_path: str, exc: OSError, what: str = "cannot read") -> None:
        """Record an OS error on ``host_path`` (a permission error also in :attr:`unreadable`)."""
        if isinstance(exc, PermissionError) and host_path not in self.unreadable:
            self.unreadable.append(host_path)
        self.problems.append(InputError(host_path, "", f"{what}: {exc.strerror or type(exc).__name__}"))

    def read(self, host_path: str) -> bytes | None:
        """The bytes of a regular file inside the root, None otherwise (problems recorded, never content).

        A FIFO, device or socket is never opened (it could block or never end),
        a file over ``max_file_bytes`` is not read, a link loop or a link out of
        the root is not followed: each is a problem naming the file.
        """
        if not os.path.lexists(self.local(host_path)) or self.readlink(host_path) == "/dev/null":
            return None  # absent, or a masked systemd unit
        local, why = self.resolve(host_path)
        if local is None:
            self.refuse(host_path, why or "not followed", "link loop" if why and "loop" in why else "link out of root")
            return None
        if not os.path.lexists(local):  # a dangling link
            target = self.readlink(host_path)
            if self.real != os.sep and target and target.startswith("/"):  # in an image: maybe a host mount
                self.refuse(host_path, "absolute link to a path absent from the scanned root: not read",
                            "link target absent")
            return None
        limit = self.limits.max_file_bytes
        try:
            st = os.stat(local)
            if not stat.S_ISREG(st.st_mode):
                kind = _KIND.get(stat.S_IFMT(st.st_mode), "not a regular file")
                masked = local == os.path.join(self.real, "dev/null")  # a masked systemd unit
                if not stat.S_ISDIR(st.st_mode) and not masked:
                    self.refuse(host_path, f"{kind}: not read", "not a regular file")
                return None
            if st.st_size > limit:
                self.refuse(host_path, f"larger than {limit} bytes: not read", "file too large")
                return None
            fd = os.open(local, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped since the stat: never read
                    return None
                data = fh.read(limit + 1)
        except OSError as exc:
            self.denied(host_path, exc)
            return None
        if len(data) > limit:
            self.refuse(host_path, f"larger than {limit} bytes: not read", "file too large")
            return None
        self.files_read.add(os.path.realpath(local))
        return data

    def refuse(self, host_path: str, why: str, reason: str) -> None:
        """A file not read (a link out of the root or a loop, not a regular file, too large): a problem naming
        it (stderr, exit 3) and an entry of :attr:`skipped` with ``reason``, once per file and reason."""
        self.problems.append(InputError(host_path, "", why))
        if (host_path, reason) not in self.skipped:
            self.skip(host_path, reason)

    def readlink(self, host_path: str) -> str | None:
        """The target text of a symbolic link (never followed), None when not a link or unreadable."""
        try:
            return os.readlink(self.local(host_path))
        except OSError:
            return None

    def listdir(self, host_path: str) -> list[str]:
        """Sorted entry names of a directory inside the root ([] otherwise).  A folder that is a link out of the
        root or a link loop (``~/.ssh -> /etc``), or that cannot be listed, is a problem naming it (:meth:`refuse`,
        :meth:`denied`), never an empty folder in silence."""
        local, why = self.resolve(host_path)
        if local is None:
            self.refuse(host_path, why or "not followed", "link loop" if why and "loop" in why else "link out of root")
            return []
        if not os.path.isdir(local):
            return []
        names: list[str] = []
        try:
            with os.scandir(local or "") as it:
                for entry in it:
                    if len(names) >= MAX_LISTED_NAMES:  # a folder of planted files never stops the scan
                        self.problems.append(InputError(host_path, "", f"more than {MAX_LISTED_NAMES} entries: "
                                                        "the rest not read"))
                        break
                    names.append(entry.name)
        except OSError as exc:
            self.denied(host_path, exc, "cannot list")
        return sorted(names)

    def skip(self, host_path: str, reason: str) -> None:
        """Record a folder the search did not enter (or a file not read: :meth:`refuse`), and why."""
        self.skip_counts[reason] += 1
        if len(self.skipped) < MAX_LISTED_SKIPS:
            self.skipped.append((host_path, reason))

    def search(self, top: str = "/") -> Iterator[tuple[str, list[str], list[str]]]:
        """``(host dir, sub-folder names, file names)`` of every folder below ``top``, bounded.

        Breadth first (shallow folders everywhere before deep ones), names sorted, links never followed (a link is listed with
        the files; one the host would follow to a folder out of the root is refused: :meth:`_folder_link`).
        Not entered, each recorded by :meth:`skip`: the pseudo
        filesystems :data:`PSEUDO_FS` (in ``/dev`` only ``/dev/shm`` is entered), folders named in
        :data:`PRUNED_NAMES`, unreadable folders (also a problem), folders
        deeper than ``max_depth`` (one problem naming the first), and every folder left when ``max_entries``
        or ``max_seconds`` is reached (a problem each time a limit stops the
        search).
        """
        lim = self.limits
        deadline = time.monotonic() + lim.max_seconds
        stack = deque([top])  # breadth first: a limit leaves the deepest folders, never a whole shallow branch
        deep: list[str] = []  # folders not entered for the depth limit
        while stack:
            d = stack.popleft()
            if self.entries >= lim.max_entries or time.monotonic() > deadline:
                self._stop(d, stack, "entry limit" if self.entries >= lim.max_entries else "time limit")
                self._too_deep(deep)
                return
            try:
                with os.scandir(self.local(d)) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.skip(d, "unreadable")
                self.denied(d, exc, "cannot list")
                continue
            self.entries += len(entries)
            dirs, files = [], []
            for e in entries:
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                    if not is_dir and e.is_symlink():
                        self._folder_link(f"{d.rstrip('/')}/{e.name}")
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(e.name)
            yield d, dirs, files
            for name in dirs:
                child = f"{d.rstrip('/')}/{name}"
                reason = self._prune(child, name)
                if reason:
                    self.skip(child, reason)
                    if reason == "depth limit":
                        deep.append(child)
                else:
                    stack.append(child)
        self._too_deep(deep)

    def _folder_link(self, host_path: str) -> None:
        """A link met by the search that the host would follow to a folder the scan cannot enter: one out of the
        root (``/opt/actions-runner -> /srv/elsewhere``) or a loop.  It is refused (:meth:`refuse`: a problem
        naming it, exit 3, and an entry of :attr:`skipped`), so a runner behind it is ``unknown`` to ``diff``,
        never gone.  A link inside the root is not followed (its target is searched where it lies); with the root
        ``/`` nothing is out of it.  Only ``stat`` is used on the target, never a read."""
        if self.real == os.sep:
            return
        local, why = self.resolve(host_path)
        if local is None and os.path.isdir(self.local(host_path)):  # followed naively: a folder out of the root
            self.refuse(host_path, why or "not followed", "link loop" if why and "loop" in why else "link out of root")

    def _prune(self, host_dir: str, name: str) -> str | None:
        """Why the search does not enter ``host_dir`` (None: it does)."""
        if host_dir in PSEUDO_FS[:2] or (str(PurePosixPath(host_dir).parent) == "/dev" and host_dir != "/dev/shm"):
            return "pseudo filesystem"
        if name in PRUNED_NAMES:
            return "package or VCS data"
        if host_dir.count("/") > self.limits.max_depth:
            return "depth limit"
        return None

    def _too_deep(self, deep: list[str]) -> None:
        """Folders the depth limit left: one problem naming the first (stderr, exit 3); each is in
        :attr:`skipped` (reason ``depth limit``), so what lies below is ``unknown`` to ``diff``, never gone."""
        if deep:
            self.problems.append(InputError(deep[0], "", f"not searched: deeper than the depth limit (max depth "
                                            f"{self.limits.max_depth}; {len(deep)} folder(s) in all)"))

    def _stop(self, current: str, stack: Iterable[str], reason: str) -> None:
        """A limit stopped the search: every folder left is skipped, and the scan is partial."""
        left = [current, *stack]
        for d in left:
            self.skip(d, reason)
        self.problems.append(InputError(current, "", f"{reason} reached ({self.entries} entries): "
                                        f"{len(left)} folders not searched"))

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

