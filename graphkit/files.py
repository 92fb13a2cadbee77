"""Walking input folders without opening what is not a file, and writing output files atomically.

Input: :func:`not_a_file` says what a path is when it is not a regular file (a named pipe, a folder, a link to
nothing...) from its ``stat`` alone, never opening it (opening a FIFO blocks until someone writes to it);
:func:`regular_files` lists the files of one folder and names every other entry it leaves out, as a problem.

Output: a temporary file in the same folder, flushed, then renamed into place.

``os.replace`` is atomic on POSIX and Windows when both paths are on one file
system (https://docs.python.org/3/library/os.html#os.replace), so a reader,
a concurrent build, a full disk or a crash sees either the previous file or
the new one, never a half-written one; on failure the temporary file is
removed and the previous file is left as it was.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from graphkit.errors import GraphkitError, InputError

__all__ = ["write_atomic", "STDOUT", "file_type", "found_files", "not_a_file", "regular_files"]

#: What a file type is called in a problem (``stat.S_IFMT`` of its mode).
_FILE_TYPES = {stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFDIR: "a folder"}


def file_type(mode: int) -> str | None:
    """What a ``st_mode`` is when it is not a regular file (``a named pipe (FIFO)``, ``a folder``...), else None."""
    if stat.S_ISREG(mode):
        return None
    return _FILE_TYPES.get(stat.S_IFMT(mode), "not a regular file")


def not_a_file(path: Path) -> str | None:
    """None when ``path`` is a regular file or a symbolic link to one; else what it is, as a problem says it:
    ``a named pipe (FIFO)``, ``a socket``, ``a folder``, ``a symbolic link to a folder`` (or to a FIFO...), ``a
    symbolic link to nothing (its target does not exist)``, ``a symbolic link loop``, or ``cannot be examined:
    <OS reason>``.
    Only ``stat`` (one call for a regular file, as ``Path.is_file``) and ``lstat`` are called: nothing is opened.

    >>> not_a_file(Path("/")), not_a_file(Path(__file__))
    ('a folder', None)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return "a symbolic link to nothing (its target does not exist)"
        return f"cannot be examined: {exc.strerror or type(exc).__name__}"
    kind = file_type(mode)
    return f"a symbolic link to {kind}" if kind and os.path.islink(path) else kind


def found_files(paths: Iterable[Path]) -> tuple[list[Path], list[InputError]]:
    """``paths`` a recursive glob found (sorted, each once) split into the regular files (or links to one) and a
    problem for each other one (:func:`not_a_file`), but a plain folder: the glob went into it, nothing in it is
    left out.  A FIFO, a dangling link or a link to a folder (which the glob does not enter) is named."""
    files, problems = [], []
    for path in sorted(set(paths)):
        kind = not_a_file(path)
        if kind is None:
            files.append(path)
        elif kind != _FILE_TYPES[stat.S_IFDIR]:
            problems.append(InputError(str(path), "", f"{kind}: not read"))
    return files, problems


def regular_files(folder: Path, wanted: Callable[[str], bool],
                  shown: Callable[[Path], str] = str) -> tuple[list[Path], list[InputError]]:
    """The entries of ``folder`` (not recursive, sorted by name) whose name is ``wanted`` and that are regular
    files or links to one, and a problem for every other wanted entry, naming it (``shown(path)``) and what it is
    (:func:`not_a_file`): a FIFO, a folder or a dangling link named ``x.yml`` is never skipped in silence, and
    never opened.  A folder that cannot be listed is one problem; a missing one lists nothing.
    """
    try:
        with os.scandir(folder) as it:  # the entry's type from the listing: no stat for a plain file
            entries = sorted(((e.name, e.is_file(follow_symlinks=False)) for e in it if wanted(e.name)))
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [InputError(shown(folder), "", f"cannot be listed: {exc.strerror or type(exc).__name__}")]
    files, problems = [], []
    for name, plain in entries:
        path = folder / name
        kind = None if plain else not_a_file(path)
        if kind is None:
            files.append(path)
        else:
            problems.append(InputError(shown(path), "", f"{kind}: not read"))
    return files, problems

#: The output path that means standard output (``-o -``).
STDOUT = "-"


def write_atomic(path: str | Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (UTF-8; a string, or an iterable of pieces written as they come) to ``path`` atomically;
    ``-`` writes to standard output.  An exception raised by the pieces' iterator leaves the previous file.

    Raises
    ------
    GraphkitError
        ``"<path>: <OS reason>"`` when the folder is missing or not writable, the
        disk is full, or ``path`` is a folder; the previous file at ``path`` is
        unchanged.
    """
    pieces = [text] if isinstance(text, str) else text
    if str(path) == STDOUT:
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    target = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent if str(target.parent)
                                   else ".")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            for piece in pieces:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        if target.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise GraphkitError(f"{target}: cannot write: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
