"""Writing output files atomically: a temporary file in the same folder, flushed, then renamed into place.

``os.replace`` is atomic on POSIX and Windows when both paths are on one file
system (https://docs.python.org/3/library/os.html#os.replace), so a reader,
a concurrent build, a full disk or a crash sees either the previous file or
the new one, never a half-written one; on failure the temporary file is
removed and the previous file is left as it was.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from graphkit.errors import GraphkitError

__all__ = ["write_atomic", "STDOUT"]

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
