"""Guards of the command line's paths: ``-o`` never replaces a file the command reads (:func:`replaced_input`,
:func:`refuse_output`, :func:`refuse_scan_output`), and the ``collect host --key-file`` key is read bounded
(:func:`key_file_bytes`).  Re-exported by :mod:`graphkit.cli_common`."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import typer

from graphkit.output import neutralise

__all__ = ["MIN_KEY_BYTES", "key_file_bytes", "refuse_output", "refuse_scan_output", "replaced_input"]


def replaced_input(output: Path, inputs: Iterable[tuple[str, str | Path]],
                   reads: Callable[[str, Path, Path], bool] | None = None) -> tuple[str, str] | None:
    """The first of ``inputs`` (``(option, path)``) that writing ``output`` would replace, or None.

    Paths are compared resolved (links, ``..``, relative to the working directory): ``output`` is an input file,
    or a path inside an input folder that the command reads there, whatever its extension:
    ``reads(option, folder, target)`` answers it (:meth:`GraphInput.holds`: the files the folder's source
    collects, :func:`graphkit.build.reads_file`); without ``reads``, every path inside the folder counts (``collect
    host --root`` of a mounted host: the scan may read any of its files).  ``-`` (standard output) replaces nothing.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "g.json").write_text("{}")
    2
    >>> option, value = replaced_input(d / "." / "g.json", [("--graph", d / "g.json")])
    >>> option, value == str(d / "g.json"), replaced_input(d / "r.html", [("--root", d)]) == ("--root", str(d))
    ('--graph', True, True)
    """
    if str(output) == "-":
        return None
    target = output.resolve()
    for option, value in inputs:
        p = Path(value).resolve()
        if target == p or (p in target.parents and (reads is None or reads(option, Path(value), target))):
            return option, str(value)
    return None


def refuse_output(output: Path | None, replaced: tuple[str, str] | None, what: str) -> None:
    """Raise ``typer.BadParameter`` (exit 2) on ``--output`` when it would replace an input (``replaced``, from
    :func:`replaced_input`), naming both; ``what`` is the command (``this build``)."""
    if output is not None and replaced is not None:
        option, value = replaced
        raise typer.BadParameter(f"{neutralise(str(output))!r} is an input of {what} "
                                 f"({option} {neutralise(value)!r}): it is never overwritten", param_hint="--output")


def refuse_scan_output(output: Path, root: Path, key_file: Path | None, read: Iterable[str] = ()) -> None:
    """``collect host -o``: raise the usage error (exit 2, :func:`refuse_output`) when ``output`` is the key file,
    any path under ``--root`` (another host's files, mounted: the scan may read any, and its evidence is never
    changed), or, scanning the live host (``--root /``, under which every path lies), a file the scan read
    (``read``: real paths, :attr:`graphkit.registry.CollectResult.read`; called again after the scan)."""
    given = [("--key-file", key_file)] if key_file is not None else []
    live = Path(root).resolve() == Path(Path(root).resolve().anchor)
    refuse_output(output, replaced_input(output, given + ([] if live else [("--root", root)])), "this scan")
    if str(output) != "-" and str(output.resolve()) in set(read):
        refuse_output(output, ("--root", f"{root}: the scan read it"), "this scan")


#: Shortest ``--key-file`` key: the HMAC-SHA256 output length; RFC 2104 section 3 strongly discourages keys
#: shorter than it (https://www.rfc-editor.org/rfc/rfc2104#section-3).
MIN_KEY_BYTES = 32


def key_file_bytes(path: Path) -> bytes:
    """The fingerprint key of ``collect host --key-file`` (the file's bytes), read bounded
    (:func:`graphkit.ingestor.read_bytes`: a regular file of at most ``max_file_bytes``; a FIFO or ``/dev/zero`` is
    never read).

    Raises
    ------
    typer.BadParameter
        (exit 2, on ``--key-file``) for a file that is not a regular file, too large or unreadable, or holds fewer
        than :data:`MIN_KEY_BYTES` bytes (an empty or short key protects no low-entropy value).  Never quotes it.
    """
    from graphkit.errors import InputError
    from graphkit.ingestor import read_bytes
    try:
        key = read_bytes(path)
    except InputError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--key-file") from None
    if len(key) < MIN_KEY_BYTES:
        raise typer.BadParameter(f"{neutralise(str(path))}: a key of {len(key)} byte(s); give at least "
                                 f"{MIN_KEY_BYTES} random bytes (head -c {MIN_KEY_BYTES} /dev/urandom > FILE)",
                                 param_hint="--key-file")
    return key
