"""``graphkit what-if``: apply fixes to a copy of the graph on the command line, print blast radius and plan
before and after (the command-line face of :mod:`graphkit.whatif`, as ``notebooks/02-what-if.ipynb`` uses it).

Each change option is repeatable and the changes compose in a fixed order (runners made ephemeral, runner groups
restricted, trust policies narrowed, edges removed), so the result does not depend on the order of the options.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from graphkit.cli_common import GraphInput, OrgOpt, SourcesOpt, err, fail, out, print_item, reads_graph
from graphkit.errors import GraphkitError, UnknownEdgeError, UnknownNodeError
from graphkit.output import neutralise, print_json, term

if TYPE_CHECKING:  # the model, the graph and the analyses load when the command runs (graphkit --help stays light)
    from graphkit.graph import Graph
    from graphkit.whatif import Comparison

__all__ = ["what_if_cmd", "what_if_document", "parse_edge", "apply_changes", "WHAT_IF_SCHEMA"]

WHAT_IF_SCHEMA = "graphkit.what-if/v1"

#: ``KIND[|KEY]:SOURCE->TARGET``: an edge by kind and endpoints; ``KEY`` picks one of parallel edges of that kind
#: (the edge's ``key``: its networkx key is ``KIND|KEY``, as in the graph file).
_EDGE = re.compile(r"(?P<kind>[a-z_]+)(?:\|(?P<key>[^:]*))?:(?P<source>.+?)->(?P<target>.+)")


def parse_edge(text: str) -> tuple[str, str, str, str | None]:
    """``(kind, source, target, key)`` from ``KIND[|KEY]:SOURCE->TARGET``.

    Raises
    ------
    typer.BadParameter
        For any other form or an unknown edge kind (exit 2).

    >>> parse_edge("reads_secret:job:acme/app/ci.yml#b->secret:org:acme:NPM")
    ('reads_secret', 'job:acme/app/ci.yml#b', 'secret:org:acme:NPM', None)
    """
    m = _EDGE.fullmatch(text.strip())
    from graphkit.model import EdgeKind

    kinds = {k.value for k in EdgeKind}
    if not m or m["kind"] not in kinds:
        raise typer.BadParameter(f"{neutralise(text)!r} is not KIND[|KEY]:SOURCE->TARGET with KIND one of "
                                 f"{', '.join(sorted(kinds))}", param_hint="--remove-edge")
    return m["kind"], m["source"].strip(), m["target"].strip(), m["key"]


def _pairs(values: list[str], hint: str, graph: Graph | None = None) -> dict[str, list[str]]:
    """``ID=A,B`` options (repeatable) as ``{ID: [A, B, ...]}`` in first-seen order.

    An id may hold ``=`` (an IAM role name may): with ``graph``, the split is at the first ``=`` whose left side
    is a node of the graph, else at the first ``=``.
    """
    found: dict[str, list[str]] = {}
    for v in values:
        cuts = [i for i, c in enumerate(v) if c == "="]
        at = next((i for i in cuts if graph is not None and v[:i].strip() in graph), cuts[0] if cuts else -1)
        subject, rest = v[:at].strip(), v[at + 1:]
        items = [x.strip() for x in rest.split(",") if x.strip()]
        if at < 0 or not subject or not items:
            raise typer.BadParameter(f"{neutralise(v)!r} is not ID=VALUE[,VALUE...]", param_hint=hint)
        found.setdefault(subject, []).extend(items)
    return found


class ChangeValueError(GraphkitError):
    """A change option's value names a node of another kind (``--ephemeral host:build-01``) or a workflow the
    graph does not hold (``--group-workflow G=bogus``): ``option`` is the command-line option, ``value`` as given.
    """

    def __init__(self, option: str, value: str, reason: str) -> None:
        self.option, self.value = option, value
        super().__init__(f"{value!r} {reason}")


def _check_values(g: Graph, typed: dict[str, tuple[Iterable[str], str]],
                  group_workflows: dict[str, list[str]]) -> None:
    """Each id a change option names (``{option: (ids, node kind it must be)}``: ``--ephemeral`` a runner,
    ``--restrict-group`` a runner group, ``--narrow-trust`` a cloud role...) is of that kind, each group workflow
    (``owner/repo/.github/workflows/x.yml[@ref]``) a workflow of ``g``; raises :class:`ChangeValueError` (a usage
    error naming the option).  An id not in ``g`` at all is left to the change itself (``UnknownNodeError``)."""
    from graphkit.analysis.reach import known_id
    from graphkit.model import NodeKind

    for option, (values, want) in typed.items():
        for value in values:
            kind = g.node(known_id(g, value)).spec.kind if _known(g, value) else None
            if kind is not None and kind.value != want:
                raise ChangeValueError(option, value, f"is a {kind.value}, not a {want}")
    for value in (w for ws in group_workflows.values() for w in ws):
        path = value.partition("@")[0].strip()
        if not _known_workflow(g, path):
            names = [f"{n.repository}/{n.path}" for n in g.nodes(NodeKind.WORKFLOW)]  # type: ignore[attr-defined]
            hint = UnknownNodeError(path, names).suggestions
            raise ChangeValueError("--group-workflow", value, "names no workflow of the graph (owner/repo/"
                                   ".github/workflows/x.yml[@ref])" + (f"; did you mean: {', '.join(hint)}"
                                                                        if hint else ""))


def _require_a_change(no_public: bool, *changes: object) -> None:
    """A usage error unless some change option is given (``changes``: their values, the group options third and
    fourth); ``--no-public-repositories`` modifies the groups those name, so alone it is one too."""
    if no_public and not (changes[2] or changes[3]):
        raise typer.BadParameter("it modifies the groups that --restrict-group or --group-workflow name: give "
                                 "one of them", param_hint="--no-public-repositories")
    if not any(changes):
        raise typer.BadParameter("give at least one change (--ephemeral, --ephemeral-host, --restrict-group or "
                                 "--group-workflow, each optionally with --no-public-repositories, "
                                 "--narrow-trust, --remove-edge)")


def _known_workflow(g: Graph, path: str) -> bool:
    """Whether ``owner/repo/.github/workflows/x.yml`` is a workflow of ``g``."""
    from graphkit.model import ids

    owner, _, rest = path.partition("/")
    name, _, file = rest.partition("/")
    try:
        return _known(g, ids.workflow(f"{owner}/{name}", file))
    except ids.IdError:
        return False


def _known(g: Graph, node_id: str) -> bool:
    from graphkit.analysis.reach import known_id

    try:
        known_id(g, node_id)
    except UnknownNodeError:
        return False
    return True


def apply_changes(g: Graph, *, ephemeral: list[str] = (), ephemeral_host: list[str] = (),  # type: ignore[assignment]
                  groups: dict[str, list[str]] | None = None, group_workflows: dict[str, list[str]] | None = None,
                  no_public: bool = False, trust: dict[str, list[str]] | None = None,
                  edges: list[str] = ()) -> Graph:  # type: ignore[assignment]
    """The what-if copy of ``g`` with every change applied (:mod:`graphkit.whatif`), in a fixed order.

    Parameters
    ----------
    g : Graph
        The graph (unchanged).
    ephemeral, ephemeral_host : list of str
        Runner ids made ephemeral (``ephemeral_host``: on a throw-away VM too).
    groups : dict, optional
        Runner group id -> repositories (``owner/name``) it is restricted to.
    group_workflows : dict, optional
        Runner group id -> workflows (``owner/repo/.github/workflows/x.yml@ref``) it is restricted to; a group
        named here but not in ``groups`` keeps its repositories.
    no_public : bool
        Restricted groups no longer allow public repositories.
    trust : dict, optional
        Cloud role id -> ``sub`` patterns (AWS ``StringLike``) its trust policy is narrowed to.
    edges : list of str
        ``KIND[|KEY]:SOURCE->TARGET`` edges to remove (:func:`parse_edge`).

    Raises
    ------
    UnknownNodeError, GraphkitError
        For an unknown id, an id of the wrong kind, or an edge not in the graph; :class:`ChangeValueError` for
        a change id of the wrong kind (``--ephemeral`` not a runner, ``--restrict-group``/``--group-workflow`` not a
        runner group, ``--narrow-trust`` not a cloud role) or a group workflow the graph does not hold.
    """
    from graphkit.whatif import make_ephemeral, narrow_trust_policy, remove_edges, restrict_runner_group

    groups, group_workflows, trust = groups or {}, group_workflows or {}, trust or {}
    _check_values(g, {"--ephemeral-host": (ephemeral_host, "runner"), "--ephemeral": (ephemeral, "runner"),
                      "--restrict-group": (groups, "runner_group"), "--group-workflow": (group_workflows,
                                                                                         "runner_group"),
                      "--narrow-trust": (trust, "cloud_role")}, group_workflows)
    for r in ephemeral_host:
        g = make_ephemeral(g, r, host=True)
    for r in ephemeral:
        if r not in ephemeral_host:
            g = make_ephemeral(g, r)
    for group in [*groups, *(x for x in group_workflows if x not in groups)]:
        # workflows only (groups.get: None): the group keeps the repository access it has
        g = restrict_runner_group(g, group, repositories=groups.get(group), workflows=group_workflows.get(group),
                                  allows_public_repositories=False if no_public else None)
    for role, subjects in trust.items():
        g = narrow_trust_policy(g, role, subjects=subjects)
    refs = [ref for text in edges for ref in _edge_refs(g, text)]
    return remove_edges(g, refs) if refs else g


@contextmanager
def _option(hint: str) -> Iterator[None]:
    """An unknown id or name met inside is a usage error (exit 2) naming the option ``hint`` and the value."""
    try:
        yield
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint=hint) from None


def _check_names(g: Graph, ids: dict[str, Iterable[str]], groups: dict[str, list[str]]) -> None:
    """Every id a change option names is a node of ``g`` (written as graphkit writes it or not:
    :func:`graphkit.analysis.reach.known_id`), every ``--restrict-group`` repository a repository of ``g``
    (:func:`graphkit.whatif.known_repository`).

    Raises
    ------
    typer.BadParameter
        For the first unknown one, naming its option and the value (with close names), before anything runs.
    """
    from graphkit.analysis.reach import known_id
    from graphkit.whatif import known_repository

    checks = [(hint, known_id, value) for hint, values in ids.items() for value in values]
    checks += [("--restrict-group", known_repository, repo) for repos in groups.values() for repo in repos]
    for hint, check, value in checks:
        with _option(hint):
            check(g, value)


def _edge_refs(g: Graph, text: str) -> list:
    """What :func:`~graphkit.whatif.remove_edges` takes for one ``--remove-edge`` value."""
    kind, source, target, key = parse_edge(text)
    if key is None:
        return [(source, target, kind)]
    hit = [e for e in (g.out_edges(source) if source in g else []) if e.target == target
           and e.kind.value == kind and e.key == key]
    if not hit:
        raise UnknownEdgeError(f"no edge {kind}|{key} {source} -> {target}")
    return hit


def _steps(snapshot: Any) -> list[dict[str, Any]]:
    return [{"rank": s.rank, "phase": s.phase.value, "action": s.action.value, "target": s.subject_id,
             "target_name": s.subject_name, "residual_weight": s.residual_weight} for s in snapshot.plan.steps]


def what_if_document(c: Comparison) -> dict[str, Any]:
    """The ``graphkit.what-if/v1`` document of a comparison.

    Returns
    -------
    dict
        ``{schema, sources, changes, metrics: {name: {before, after, delta}}, by_kind: {kind: {before, after,
        delta}}, removed: [{id, kind, criticality}], added: [...], changed: {id: {field: [before, after]}},
        plan: {before: [step], after: [step], removed: [step], added: [step]}}``, a step being ``{rank, phase,
        action, target, target_name, residual_weight}``; a plan step is *removed* when no step of the after plan
        has its action and target, *added* the other way round.
    """
    base = c.to_dict()
    before = Counter(r.kind.value for r in c.before.radius)
    after = Counter(r.kind.value for r in c.after.radius)
    by_kind = {k: {"before": before[k], "after": after[k], "delta": after[k] - before[k]}
               for k in sorted(before | after)}

    def assets(ids: tuple[str, ...], snap: Any) -> list[dict[str, str]]:
        return [{"id": i, "kind": snap.radius[i].kind.value, "criticality": snap.radius[i].criticality.value}
                for i in ids]

    steps_b, steps_a = _steps(c.before), _steps(c.after)
    key_b = {(s["action"], s["target"]) for s in steps_b}
    key_a = {(s["action"], s["target"]) for s in steps_a}
    return {"schema": WHAT_IF_SCHEMA, "sources": base["sources"], "changes": base["changes"],
            "metrics": base["metrics"], "by_kind": by_kind,
            "removed": assets(c.removed, c.before), "added": assets(c.added, c.after), "changed": base["changed"],
            "plan": {"before": steps_b, "after": steps_a,
                     "removed": [s for s in steps_b if (s["action"], s["target"]) not in key_a],
                     "added": [s for s in steps_a if (s["action"], s["target"]) not in key_b]}}


#: Entries per list on a terminal when ``--top`` is not given (piped output and JSON list everything).
TERMINAL_LIST = 10


class WhatIfFormat(str, Enum):
    table = "table"
    json = "json"


def _print_change(change: dict[str, Any]) -> None:
    details = ", ".join(f"{k} {v}" for k, v in change.items() if k not in ("change", "subject") and v not in
                        (None, []) and (v is False or v != 0))  # a setting made false is shown, a zero count not
    print_item(f"{term(change['change'])} {term(change.get('subject', ''))}  [dim]{term(details)}[/dim]", 2)


def print_what_if(doc: dict[str, Any], top: int | None) -> None:
    """The document as text: changes, metrics and counts by kind (before -> after), assets no longer reached
    (critical first), plan steps removed and added; lists cut to ``top`` entries (``None``: all)."""
    print_item(f"[bold]What if[/bold] (blast radius of {term(', '.join(doc['sources']))})")
    for ch in doc["changes"]:
        _print_change(ch)
    rows = [(m, v) for m, v in doc["metrics"].items()] + [(f"  {k}", v) for k, v in doc["by_kind"].items()
                                                          if v["delta"]]
    width = max(len(m) for m, _ in rows)
    out.print()
    print_item(f"{'':<{width}}  before   after   delta", 0, "bold")
    for m, v in rows:
        print_item(f"{term(m):<{width}}  {v['before']:>6}  {v['after']:>6}  {v['delta']:>+6}")
    sections = (("No longer reached", doc["removed"], lambda r: f"{r['criticality']:<8} {term(r['id'])}"),
                ("Newly reached", doc["added"], lambda r: f"{r['criticality']:<8} {term(r['id'])}"),
                ("Plan steps no longer needed", doc["plan"]["removed"],
                 lambda s: f"{term('[' + s['phase'] + ']')} {s['action']} {term(s['target'])}"),
                ("Plan steps added", doc["plan"]["added"], lambda s: f"{term('[' + s['phase'] + ']')} {s['action']} {term(s['target'])}"))
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    for title, items, fmt in sections:
        if title.endswith("reached"):
            items = sorted(items, key=lambda r: (order.get(r["criticality"], 9), r["id"]))
        out.print()
        print_item(f"[bold]{title}[/bold] ({len(items)})")
        for it in items[:top]:
            print_item(fmt(it), 2)
        if top is not None and len(items) > top:
            print_item(f"... {len(items) - top} more (--top N, --format json for all)", 2, "dim")


@reads_graph()
def what_if_cmd(  # noqa: PLR0913 - one option per change kind
    sources: SourcesOpt,
    given: GraphInput,
    ephemeral: Annotated[list[str], typer.Option("--ephemeral", metavar="RUNNER", help="Make a runner ephemeral "
                                                 "(one job, then removed). Repeatable.")] = [],
    ephemeral_host: Annotated[list[str], typer.Option("--ephemeral-host", metavar="RUNNER", help="Make a runner "
                                                      "ephemeral on a throw-away VM (its host's caches no longer "
                                                      "carry anything). Repeatable.")] = [],
    restrict_group: Annotated[list[str], typer.Option("--restrict-group", metavar="GROUP=REPO[,REPO]", help="Limit "
                                                      "a runner group to these repositories. Repeatable.")] = [],
    group_workflow: Annotated[list[str], typer.Option("--group-workflow", metavar="GROUP=WORKFLOW[,WORKFLOW]",
                                                      help="Limit a runner group to these workflows "
                                                      "(owner/repo/.github/workflows/x.yml@ref). Repeatable.")] = [],
    no_public: Annotated[bool, typer.Option("--no-public-repositories", help="Modifies the groups that "
                                            "--restrict-group and --group-workflow name: they no longer allow "
                                            "public repositories (allows_public_repositories: false). Needs one "
                                            "of those options.")] = False,
    narrow_trust: Annotated[list[str], typer.Option("--narrow-trust", metavar="ROLE=SUB[,SUB]", help="Trust only "
                                                    "these OIDC sub patterns (StringLike) in a role's trust "
                                                    "policy. Repeatable.")] = [],
    remove_edge: Annotated[list[str], typer.Option("--remove-edge", metavar="KIND[|KEY]:SOURCE->TARGET",
                                                   help="Remove an edge. Repeatable.")] = [],
    fmt: Annotated[WhatIfFormat, typer.Option("--format", "-f", help="Output format.")] = WhatIfFormat.table,
    top: Annotated[Optional[int], typer.Option("--top", min=1, help="Entries per list (default on a terminal: "
                                               f"{TERMINAL_LIST}; piped or JSON: all).")] = None,
    org: OrgOpt = None,
) -> None:
    """Apply fixes to a copy of the graph and print the blast radius and revocation plan before and after."""
    from graphkit.resolve.untrusted import expand_sources

    groups, workflows = _pairs(restrict_group, "--restrict-group"), _pairs(group_workflow, "--group-workflow")
    trust = _pairs(narrow_trust, "--narrow-trust")
    for text in remove_edge:
        parse_edge(text)  # a usage error before anything is built
    _require_a_change(no_public, ephemeral, ephemeral_host, groups, workflows, trust, remove_edge)
    if not sources:
        raise typer.BadParameter("give at least one source", param_hint="--from")
    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    groups, workflows = _pairs(restrict_group, "--restrict-group", g), _pairs(group_workflow, "--group-workflow", g)
    trust = _pairs(narrow_trust, "--narrow-trust", g)
    expanded = expand_sources(g, sources, org)
    _check_names(g, {"--from": expanded, "--ephemeral": ephemeral, "--ephemeral-host": ephemeral_host,
                     "--restrict-group": groups, "--group-workflow": workflows, "--narrow-trust": trust}, groups)
    try:
        after = apply_changes(g, ephemeral=ephemeral, ephemeral_host=ephemeral_host, groups=groups,
                              group_workflows=workflows, no_public=no_public, trust=trust, edges=remove_edge)
        from graphkit.whatif import compare

        doc = what_if_document(compare(g, after, expanded))
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc))) from None
    except UnknownEdgeError as exc:  # a --remove-edge value naming no edge: a usage error, as an unknown node is
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--remove-edge") from None
    except ChangeValueError as exc:  # a value of the wrong kind or an unknown workflow: as an unknown id
        raise typer.BadParameter(neutralise(str(exc)), param_hint=exc.option) from None
    except GraphkitError as exc:
        fail(exc)
    if fmt is WhatIfFormat.json:
        print_json(out, doc)
    else:
        print_what_if(doc, top or (TERMINAL_LIST if out.is_terminal else None))
    given.end(g, partial)
