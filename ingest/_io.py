"""The one place ingestors read input text (the collect steps' shared I/O)."""

from __future__ import annotations

from pathlib import Path

from graphkit.errors import InputError


def read_text(path: Path, *, name: str | None = None) -> str:
    """Read ``path`` as UTF-8 text.

    Parameters
    ----------
    path
        the file to read.
    name
        how the file is named in errors (default ``str(path)``).

    Raises
    ------
    InputError
        naming the file, with the byte offset for non-UTF-8 content or the OS
        reason for an unreadable file.
    """
    file = name if name is not None else str(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(file, f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(file, "", f"unreadable: {exc.strerror or exc}") from None
