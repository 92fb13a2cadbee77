"""The skeleton every source is built on: collect (the only I/O) -> read -> parse (pure) -> to_graph (pure).

A source (``ingest/<source>``) subclasses :class:`FileIngestor` and writes
three things: how to find its files (:meth:`FileIngestor.collect`, default:
the files given and, in folders, the files matching
:attr:`FileIngestor.patterns`), a pure :meth:`~FileIngestor.parse` from text
to pydantic models that raises :class:`~graphkit.errors.InputError` naming
file and place, and a pure :meth:`~FileIngestor.to_graph` from every parsed
file to nodes and edges (a :class:`~graphkit.graph.GraphBuilder`).  The loop
(:meth:`FileIngestor.ingest`) is written once, here: one malformed file is one
problem and never stops the others; progress is reported per file; a file
found in a folder that is not this source's kind of document is ignored (and
named); a folder where nothing usable was found is a problem, never an empty
input.

The core reaches sources only through :mod:`graphkit.registry` (entry points
``graphkit.ingestors``); each ingestor's :class:`InputOption` becomes the
``--<name>`` option of every command that reads inputs.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from graphkit import limits
from graphkit.errors import InputError, LimitExceeded
from graphkit.files import file_type, found_files
if TYPE_CHECKING:  # imported on first use: an ingestor's name and option are read without networkx or the model
    from graphkit.graph import GraphBuilder
    from graphkit.model import Edge, Node


def _builder() -> GraphBuilder:
    from graphkit.graph import GraphBuilder
    return GraphBuilder()

__all__ = ["Progress", "RANK_REFERENCES", "RANK_INVENTORY", "RANK_CLOUD", "InputOption", "InputFile", "Collected", "NotRecognised", "IngestResult", "Ingestor",
           "FileIngestor", "read_bytes", "read_text", "unexpected", "reuse_listing"]

#: ``progress(advance, description)``: called by ingestors as they finish items.
Progress = Callable[[int, str], None]


@dataclass(frozen=True)
class InputOption:
    """How an ingestor's inputs are given on the command line: ``--<name> METAVAR`` (repeatable), with help."""

    metavar: str
    help: str


@dataclass(frozen=True)
class InputFile:
    """One file to read.

    ``path``: where to read it.  ``name``: how parse errors and evidence name
    it (the path as given, or relative to a checkout).  ``given``: named on
    the command line rather than found in a folder.  ``root``: the input
    path it was found under.  ``context``: source-specific (e.g. the
    repository of a checkout).
    """

    path: Path
    name: str
    given: bool = True
    root: Path | None = None
    context: Any = None


@dataclass
class Collected:
    """What :meth:`FileIngestor.collect` found: ``files`` to read and ``problems`` (missing paths...).

    ``ignored`` is filled by the loop: files found in folders that are not this source's documents.
    """

    files: list[InputFile] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


class NotRecognised(InputError):
    """A file that is not this source's kind of document.

    Found in a folder, it is ignored (and listed); named on the command line,
    it is a problem like any other.
    """


@dataclass
class IngestResult:
    """What one ingestor produced.

    ``graph``: its nodes and edges (merged as :class:`~graphkit.graph.Graph`
    merges them).  ``problems``: non-fatal input errors (skipped files or
    places), each naming file and place.  ``complete``: every input was read
    in full; a consumer must not treat missing data of an incomplete source as
    absent.  ``items``: files read.  ``meta``: facts for
    :class:`~graphkit.meta.GraphMeta` (key -> model or JSON-compatible value).
    """

    graph: GraphBuilder = field(default_factory=_builder)
    problems: list[InputError] = field(default_factory=list)
    items: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def nodes(self) -> list[Node]:
        """The nodes, in the order first seen."""
        return list(self.graph.nodes.values())

    @property
    def edges(self) -> list[Edge]:
        """The edges, in the order first seen."""
        return list(self.graph.edges.values())

    @property
    def complete(self) -> bool:
        """True when nothing was skipped."""
        return not self.problems


#: Merge ranks: sources that reference things (workflows) merge first, sources that describe them with authority
#: (runner inventories and host snapshots, then cloud exports) after, so that on a conflict between two known
#: values the describing source wins (:meth:`graphkit.model.Node.merged`), whatever the command line order.
RANK_REFERENCES, RANK_INVENTORY, RANK_CLOUD = 10, 20, 30


class Ingestor(Protocol):
    """What the core needs of a source: a ``name`` (the ``--<name>`` option), a ``description``, its
    :class:`InputOption`, a ``merge_rank`` (see :data:`RANK_REFERENCES`), ``count(paths)`` (progress total) and
    ``ingest(paths, progress)``, which never raises for bad input (it reports problems)."""

    name: str
    description: str
    option: InputOption
    merge_rank: int

    def count(self, paths: Sequence[str | Path]) -> int:
        """How many items :meth:`ingest` will report progress for."""

    def ingest(self, paths: Sequence[str | Path], progress: Progress | None = None) -> IngestResult:
        """Read ``paths`` and return nodes, edges and problems."""


def _real_path(path: Path, folders: dict[Path, Path] | None) -> Path:
    """``path.resolve()``; with ``folders`` (folder -> its real path, filled here), a path whose last component
    is no symbolic link resolves to its folder's real path and its name, each folder resolved so once for all
    the paths under it (the same path: ``os.path.realpath`` resolves the components in order)."""
    if folders is None or path.name in ("", ".", ".."):
        return path.resolve()
    try:
        plain = not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        plain = False
    if not plain:
        return path.resolve()
    parent = path.parent
    real = folders.get(parent)
    if real is None:
        real = folders[parent] = _real_path(parent, folders)
    return real / path.name


def read_text(path: Path, *, name: str | None = None, within: Path | None = None,
              within_real: Path | None = None, folders: dict[Path, Path] | None = None) -> str:
    """Read ``path`` as UTF-8 text (the one place sources read input text), refusing a file larger than the
    ``max_file_bytes`` limit before reading it (:mod:`graphkit.limits`), and a file found in an input folder
    ``within`` that resolves outside it: a symbolic link committed to a repository (Git stores links) or planted
    on a host would make graphkit read this machine's files (``/etc/shadow``, ``~/.aws/credentials``).

    ``within_real``: ``within.resolve()`` when the caller resolved it once for the many files it reads there
    (the same answer; :meth:`FileIngestor.ingest`); ``folders``: the real path of each folder resolved so far by
    the caller's reads (:func:`_real_path`).

    Raises
    ------
    InputError
        naming the file (``name``, default ``str(path)``), with the byte
        offset for non-UTF-8 content, the OS reason for an unreadable file,
        the limit passed, or the link out of ``within``.
    """
    file = name if name is not None else str(path)
    if within is not None and not _real_path(path, folders).is_relative_to(
            within_real if within_real is not None else within.resolve()):
        raise InputError(file, "", "a symbolic link to a file outside its input folder: not followed")
    raw = read_bytes(path, name=file)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(file, f"byte {exc.start}", "not UTF-8 text") from None


def read_bytes(path: Path, *, name: str | None = None) -> bytes:
    """The bytes of ``path``, a regular file (or a link to one) of at most ``max_file_bytes``
    (:mod:`graphkit.limits`): a FIFO, a device (``/dev/zero``), a folder is refused from its ``stat`` and never
    opened for reading (a FIFO would block), and a file that grew since is read no further than the limit.

    Raises
    ------
    InputError
        naming the file (``name``, default ``str(path)``): what it is when not a regular file, the limit passed,
        or the OS reason it cannot be read.
    """
    file = name if name is not None else str(path)
    cap = limits.current().max_file_bytes
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO named action.yml would block the read: never opened
            raise InputError(file, "", f"{file_type(st.st_mode)}: not read")
        size = st.st_size
        if size > cap:
            raise InputError(file, "", limits.too_many("max_file_bytes", cap, f"file of {size} bytes"))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # swapped for a FIFO since: never blocks
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise InputError(file, "", "not a regular file: not read")
            raw = fh.read(cap + 1)  # a file that grew since stat is still bounded
        if len(raw) > cap:
            raise InputError(file, "", limits.too_many("max_file_bytes", cap, f"file of more than {cap} bytes"))
        return raw
    except OSError as exc:
        raise InputError(file, "", f"unreadable: {exc.strerror or exc}") from None


def unexpected(file: str, exc: BaseException) -> InputError:
    """The problem recorded when a parser fails in a way it did not foresee (a defect of graphkit, never a reason
    to lose the other files): names the file and the exception type, never its message (which may quote input).
    A :class:`~graphkit.errors.LimitExceeded` the source did not catch (a value past a limit where it builds an
    id) is the input's fault: its message, which describes the value and never quotes it."""
    if isinstance(exc, LimitExceeded):
        return InputError(file, "", f"{exc}; file left out")
    return InputError(file, "", f"could not be parsed (internal error {type(exc).__name__}; please report it)")


ParsedT = TypeVar("ParsedT")


class FileIngestor(Generic[ParsedT]):
    """Base of file sources (see the module docstring for the contract).

    Subclasses set :attr:`name`, :attr:`description`, :attr:`option`, and
    :attr:`patterns` (or override :meth:`collect`), and implement
    :meth:`parse` and :meth:`to_graph`.  :attr:`nothing_found`, when set, is
    the problem reported for a given folder in which no file could be used.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    option: ClassVar[InputOption]
    merge_rank: ClassVar[int] = RANK_REFERENCES
    #: glob patterns of the files read in folders (recursively)
    patterns: ClassVar[tuple[str, ...]] = ("*.json", "*.yaml", "*.yml")
    nothing_found: ClassVar[str | None] = None

    # ------------------------------------------------------------ the steps a source writes
    def collect(self, paths: Sequence[str | Path]) -> Collected:
        """The files under ``paths`` (I/O: lists folders): files as given, and in folders every file matching
        :attr:`patterns` (recursively), sorted; a match that is not a file (a FIFO, a link to nothing or to a
        folder) is a problem naming it (:func:`graphkit.files.found_files`)."""
        out = Collected()
        for raw in paths:
            p = Path(raw)
            if p.is_dir():
                found, skipped = found_files(q for pattern in self.patterns for q in p.rglob(pattern))
                out.files += [InputFile(path=q, name=str(q), given=False, root=p) for q in found]
                out.problems += skipped
            else:
                out.files.append(InputFile(path=p, name=str(p), root=p))
        return out

    def parse(self, text: str, file: InputFile) -> ParsedT:
        """Text -> models (pure).  Raises :class:`InputError` (file, place, reason); :class:`NotRecognised` for a
        document of another kind.  Places skipped inside a usable file are listed by :meth:`problems_of`."""
        raise NotImplementedError

    def problems_of(self, parsed: ParsedT) -> Sequence[InputError]:
        """Problems of the parts of a parsed file that were left out (default: its ``problems`` attribute)."""
        return tuple(getattr(parsed, "problems", ()) or ())

    def to_graph(self, parsed: list[ParsedT], collected: Collected) -> IngestResult:
        """Every parsed file -> nodes, edges, further problems and meta (pure)."""
        raise NotImplementedError

    # ------------------------------------------------------------ the loop, written once
    def count(self, paths: Sequence[str | Path]) -> int:
        """Number of files :meth:`ingest` reads (one progress step each).  Inside :func:`reuse_listing`, the
        listing is kept for the next :meth:`ingest` of the same paths (folders are listed once)."""
        collected = self.collect(paths)
        if _listings is not None:
            _listings[(id(self), tuple(map(str, paths)))] = collected
        return len(collected.files)

    def ingest(self, paths: Sequence[str | Path], progress: Progress | None = None) -> IngestResult:
        """Collect, read and parse every file, then build the graph part.

        Returns
        -------
        IngestResult
            ``items`` = files parsed; ``problems`` = collect problems, then
            per-file problems in file order (named by the file's full path),
            then those of :meth:`to_graph`.
        """
        kept = _listings.pop((id(self), tuple(map(str, paths))), None) if _listings is not None else None
        collected = kept if kept is not None else self.collect(paths)
        problems = list(collected.problems)
        parsed: list[ParsedT] = []
        used: list[InputFile] = []
        real: dict[Path, Path | None] = {}  # input folder -> resolved once for its files (None: read_text does it)
        folders: dict[Path, Path] = {}  # the folders of the files read, resolved once (read_text)
        for f in collected.files:
            try:
                within = _folder_of(f)
                within_real = None if within is None else real.get(within, _UNSEEN)
                if within_real is _UNSEEN:
                    within_real = real[within] = _resolved(within)  # type: ignore[index]
                item = self.parse(read_text(f.path, name=f.name, within=within, within_real=within_real,
                                            folders=folders), f)
            except NotRecognised as exc:
                if f.given:
                    problems.append(_named(exc, f))
                else:
                    collected.ignored.append(str(f.path))
            except InputError as exc:
                problems.append(_named(exc, f))
            except Exception as exc:  # noqa: BLE001 - a parser defect: this file is lost, never the others
                problems.append(unexpected(str(f.path), exc))
            else:
                problems += [_named(p, f) for p in self.problems_of(item)]
                parsed.append(item)
                used.append(f)
            if progress is not None:
                progress(1, f"{self.name} {f.name}")
        if self.nothing_found:
            for raw in paths:
                p = Path(raw)
                if p.is_dir() and not any(u.root == p for u in used):
                    problems.append(InputError(str(p), "", self.nothing_found))
        result, lost = self._graph_of(parsed, used, collected)
        result.problems = problems + lost + result.problems
        result.items = len(used) - len(lost)
        return result

    def _graph_of(self, parsed: list[ParsedT], used: list[InputFile],
                  collected: Collected) -> tuple[IngestResult, list[InputError]]:
        """:meth:`to_graph` of every parsed file; if it fails unexpectedly (a defect), each file is tried alone
        and the files that fail are left out as problems, so that one file never loses the others."""
        try:
            return self.to_graph(parsed, collected), []
        except Exception:  # noqa: BLE001 - isolate the file(s) that trigger the defect
            pass
        keep: list[ParsedT] = []
        lost: list[InputError] = []
        for item, f in zip(parsed, used):
            try:
                self.to_graph([item], collected)
            except Exception as exc:  # noqa: BLE001
                lost.append(unexpected(str(f.path), exc))
            else:
                keep.append(item)
        try:
            return self.to_graph(keep, collected), lost
        except Exception as exc:  # noqa: BLE001 - only files together fail: every file is reported lost
            return IngestResult(), [unexpected(str(f.path), exc) for f in used]


#: Listings kept by :meth:`FileIngestor.count` for the next :meth:`FileIngestor.ingest` (None: not kept).
_listings: dict[tuple[int, tuple[str, ...]], Collected] | None = None


@contextmanager
def reuse_listing() -> Iterator[None]:
    """Within this block, :meth:`FileIngestor.count` keeps its listing for the next :meth:`FileIngestor.ingest`
    of the same paths (the CLI counts files for its progress bar, then builds: folders are listed once).
    Listings not used are dropped when the block ends."""
    global _listings
    outer, _listings = _listings, {}
    try:
        yield
    finally:
        _listings = outer


_UNSEEN: Any = object()


def _resolved(folder: Path) -> Path | None:
    """``folder.resolve()``, or None when it fails (:func:`read_text` then resolves it itself, failing as it
    always did)."""
    try:
        return folder.resolve()
    except Exception:  # noqa: BLE001 - a loop of links (RuntimeError) or an OS error: read_text reports it
        return None


def _folder_of(f: InputFile) -> Path | None:
    """The input folder ``f`` was found in (None: a file named as such)."""
    return f.root if f.root is not None and f.root != f.path else None


def _named(exc: InputError, f: InputFile) -> InputError:
    """``exc`` naming the file by its full path (parsers name it as evidence does)."""
    full = str(f.path)
    if exc.file == full:
        return exc
    return type(exc)(full, exc.place, exc.reason) if exc.file == f.name else exc
