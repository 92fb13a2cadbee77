"""Hand-offs to other tools: SARIF 2.1.0 (code scanning) and BloodHound OpenGraph JSON.

Both are derived from the registries at run time: SARIF rules from
:func:`graphkit.findings.rules`, OpenGraph node and edge kinds from
:data:`graphkit.model.NODE_TYPES` (``NodeSpec.label``) and
:data:`graphkit.model.EDGE_SPECS` (kind name, ``traversable``), so node kinds,
edge kinds and rules added later export without a change here.

SARIF (OASIS "Static Analysis Results Interchange Format Version 2.1.0"):

- one run, ``tool.driver.name`` ``graphkit``, one ``reportingDescriptor`` per
  registered rule with id ``graphkit/<rule>``, ``shortDescription`` (title),
  ``fullDescription``, ``help`` (description + remediation, text and
  markdown), ``helpUri`` and a default level;
- one result per finding: ``ruleId``/``ruleIndex``, ``level`` from the
  severity, ``message.text``, ``locations`` pointing at the evidence files with
  ``region.startLine`` when the line is known, a logical location naming the
  subject node, and ``partialFingerprints`` carrying the stable finding id
  (never a line number, so a finding keeps its identity when lines move).

Locations are never absolute paths of the machine that ran graphkit.  A file
of a repository checkout (workflow) is relative to the repository root with
``uriBaseId`` ``%SRCROOT%`` (GitHub code scanning resolves ``artifactLocation.uri``
against the root of the repository the SARIF is uploaded to:
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning),
the repository itself in the location's ``properties``.  Any other file
(inventory, IAM, host snapshot) is relative to the input root, ``uriBaseId``
``INPUTROOT``: a relative path as given, an absolute one relative to the common
parent directory of the document's absolute input paths.  Both bases are
declared in ``run.originalUriBaseIds`` by description only (no absolute URI).
SARIF 2.1.0 sections 3.4.4 (``uriBaseId``) and 3.14.14 (``originalUriBaseIds``):
https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/sarif-v2.1.0-os.html#_Toc34317431

OpenGraph (BloodHound "OpenGraph schema"): ``{"metadata": {"source_kind"},
"graph": {"nodes": [...], "edges": [...]}}``.  Node kinds are namespaced
``GK_<Label>`` (``GK_Runner``), edge kinds ``GK_<CamelCaseKind>``
(``GK_ReceivesJob``, matching ``^[A-Za-z0-9_]+$``); properties are flat
primitives or homogeneous arrays of primitives (nested values are JSON
strings, ``None`` is omitted); every edge carries ``traversable``.
Parallel edges of one kind between the same two nodes (matrix instances)
are folded into one edge (evidence unioned, ``certain`` wins).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from graphkit import __version__
from graphkit.findings import Finding, Rule, Severity, rules
from graphkit.graph import Graph
from graphkit.model import EDGE_SPECS, NODE_TYPES, Confidence, Edge, EdgeKind, Evidence, Node, NodeKind
from graphkit.output import neutralise

__all__ = [
    "SARIF_VERSION",
    "SARIF_SCHEMA_URI",
    "OPENGRAPH_SOURCE_KIND",
    "KIND_PREFIX",
    "sarif_rule_id",
    "sarif_document",
    "opengraph_node_kind",
    "opengraph_edge_kind",
    "opengraph_document",
]

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/graphkit/graphkit"
#: ``metadata.source_kind`` of the OpenGraph file (BloodHound adds it to every node).
OPENGRAPH_SOURCE_KIND = "GraphKit"
#: Namespace prefix of every exported node and edge kind.
KIND_PREFIX = "GK_"

#: SARIF ``level`` of each severity (``error`` / ``warning`` / ``note``).
SEVERITY_LEVEL: dict[Severity, str] = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
#: ``security-severity`` (0.0-10.0, as GitHub code scanning reads it) of each severity.
SECURITY_SEVERITY: dict[Severity, str] = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
    Severity.INFO: "0.0",
}
_API_OBJECT = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD)\s|^[a-z][a-z0-9+.-]*://", re.I)
_KIND_OK = re.compile(r"^[A-Za-z0-9_]+$")
#: ``uriBaseId`` of repository files (root of the repository) and of other input files (the input root).
SRCROOT = "%SRCROOT%"
INPUTROOT = "INPUTROOT"
_BASES = {
    SRCROOT: {"description": {"text": "Root of the repository named in the location's properties.repository."}},
    INPUTROOT: {"description": {"text": "Directory graphkit's non-repository inputs (inventory, IAM, host "
                                        "snapshots) are relative to: the working directory for relative paths, "
                                        "the common parent directory of absolute ones."}},
}


# --------------------------------------------------------------------------- SARIF


def sarif_rule_id(rule_id: str) -> str:
    """The SARIF rule id of a graphkit rule: ``graphkit/<rule>``.

    Examples
    --------
    >>> sarif_rule_id("runner-on-runner")
    'graphkit/runner-on-runner'
    """
    return f"graphkit/{rule_id}"


def _is_file(evidence: Evidence) -> bool:
    """Whether evidence names a file (not an API object such as ``GET /orgs/x/actions/runners``)."""
    return bool(evidence.file) and not _API_OBJECT.match(evidence.file)


def _posix(path: str) -> str:
    return path.replace("\\", "/")


def _is_abs(path: str) -> bool:
    """POSIX (``/x``) or Windows (``C:/x``, ``//server/x``) absolute path."""
    p = _posix(path)
    return p.startswith("/") or bool(re.match(r"^[A-Za-z]:/", p))


def _uri(path: str) -> str:
    """A relative URI reference for a relative path (percent-encoded, ``/`` kept, ``./`` dropped)."""
    p = posixpath.normpath(_posix(path))
    return quote(p, safe="/~@!$&'()*+,;=-._")


def input_root(paths: Iterable[str]) -> str:
    """The common parent directory of the absolute POSIX ``paths`` (``""`` when none; a Windows drive path
    keeps only its file name).

    >>> input_root(["/home/ci/in/inv.yaml", "/home/ci/in/iam/roles.json", "rel/x.json"])
    '/home/ci/in'
    """
    absolute = [posixpath.dirname(_posix(p)) for p in paths if _posix(p).startswith("/")]
    return posixpath.commonpath(absolute) if absolute else ""


def relative_location(evidence: Evidence, root: str) -> dict[str, str]:
    """The SARIF ``artifactLocation`` of file evidence: relative ``uri`` and its ``uriBaseId``.

    Parameters
    ----------
    evidence : Evidence
        File evidence (``repository`` set: path relative to the checkout root).
    root : str
        :func:`input_root` of the document's non-repository paths.

    >>> relative_location(Evidence(file="./.github/workflows/ci.yml", repository="acme/app"), "")
    {'uri': '.github/workflows/ci.yml', 'uriBaseId': '%SRCROOT%'}
    >>> relative_location(Evidence(file="/home/ci/in/iam/role x.json"), "/home/ci/in")
    {'uri': 'iam/role%20x.json', 'uriBaseId': 'INPUTROOT'}
    """
    path = _posix(evidence.file)
    if evidence.repository:
        return {"uri": _uri(path.lstrip("/")), "uriBaseId": SRCROOT}
    if _is_abs(path):
        path = posixpath.relpath(path, root) if root and path.startswith("/") else posixpath.basename(path)
    return {"uri": _uri(path), "uriBaseId": INPUTROOT}


def _descriptor(r: Rule) -> dict[str, Any]:
    text = f"{r.description}\n\nRemediation: {r.remediation}"
    markdown = f"{r.description}\n\n**Remediation.** {r.remediation}\n\n[Reference]({r.help_uri})"
    return {
        "id": sarif_rule_id(r.id),
        "name": "".join(p.capitalize() for p in re.split(r"[^A-Za-z0-9]+", r.id) if p),
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.description},
        "help": {"text": text, "markdown": markdown},
        "helpUri": r.help_uri,
        "defaultConfiguration": {"level": SEVERITY_LEVEL[r.severity]},
        "properties": {"tags": ["security", "ci-cd"], "precision": "high",
                       "security-severity": SECURITY_SEVERITY[r.severity]},
    }


def sarif_text(text: str) -> str:
    """Plain SARIF message text from input-derived text, terminal-obeyed characters shown as escapes
    (:func:`graphkit.output.neutralise`).  ``text`` is plain text, not Markdown (SARIF 2.1.0 section 3.11: only
    ``markdown`` holds formatting), so it is written as it is (``hosts[0].credentials[2]``), but for the one
    syntax plain text has: an embedded link ``[text](target)`` (section 3.11.6), whose target may be a URI.  Where
    ``](`` could close one, ``[``, ``]`` and ``\\`` are escaped with a backslash, which section 3.11.6 reads as
    the literal character.
    https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/sarif-v2.1.0-os.html#_Toc34317468

    >>> sarif_text("hosts[0].credentials[2]\\x1b[2J")
    'hosts[0].credentials[2]\\\\x1b[2J'
    >>> sarif_text("jobs.a.steps[2] [x](https://evil.test)")
    'jobs.a.steps\\\\[2\\\\] \\\\[x\\\\](https://evil.test)'
    """
    shown = neutralise(text)
    return re.sub(r"([\\\[\]])", r"\\\1", shown) if "](" in shown else shown


def _location(evidence: Evidence, root: str) -> dict[str, Any]:
    artifact: dict[str, Any] = relative_location(evidence, root)
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if evidence.line is not None and evidence.line >= 1:
        physical["region"] = {"startLine": evidence.line}
    loc: dict[str, Any] = {"physicalLocation": physical}
    props = {k: v for k, v in (("repository", evidence.repository), ("yamlPath", evidence.yaml_path)) if v}
    if props:
        loc["properties"] = props
    if evidence.yaml_path:
        loc["message"] = {"text": sarif_text(evidence.yaml_path)}
    return loc


def _result(f: Finding, index: int, root: str) -> dict[str, Any]:
    files = [e for e in f.evidence if _is_file(e)]
    locations = [_location(e, root) for e in files]
    logical = [{"fullyQualifiedName": f.subject, "kind": "resource"}]
    if locations:
        locations[0]["logicalLocations"] = logical
    else:
        locations = [{"logicalLocations": logical}]
    props: dict[str, Any] = {"severity": f.severity.value, "confidence": f.confidence.value,
                             "subject": f.subject, "related": list(f.related), "findingId": f.id}
    others = [str(e) for e in f.evidence if not _is_file(e)]
    if others:
        props["apiEvidence"] = others
    if f.properties:
        props["graphkit"] = f.properties
    return {
        "ruleId": sarif_rule_id(f.rule),
        "ruleIndex": index,
        "level": SEVERITY_LEVEL[f.severity],
        "message": {"text": sarif_text(f.message)},
        "locations": locations,
        "partialFingerprints": {"graphkitFindingId/v1": f.id},
        "properties": props,
    }


def sarif_document(findings: Iterable[Finding], *, registry: Mapping[str, Rule] | None = None) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``findings``.

    Parameters
    ----------
    findings : iterable of Finding
        From :func:`graphkit.findings.run_rules` (order is kept).
    registry : mapping of str to Rule, optional
        The rules to describe (default: every registered rule,
        :func:`graphkit.findings.rules`).  A finding of a rule missing from it
        gets a minimal descriptor built from the finding.

    Returns
    -------
    dict
        ``{"$schema", "version": "2.1.0", "runs": [{"tool": {"driver": {name,
        version, informationUri, rules}}, "results": [...],
        "columnKind": "unicodeCodePoints"}]}``; validates against
        ``schemas/sarif.schema.json``.

    Examples
    --------
    >>> from graphkit.findings import Finding, Severity
    >>> from graphkit.model import Evidence
    >>> f = Finding(id="GK-0123456789abcdef", rule="demo", title="Demo", severity=Severity.HIGH,
    ...             message="runner r1 is persistent", subject="runner:acme/r1",
    ...             evidence=[Evidence(file=".github/workflows/ci.yml", repository="acme/app", line=12)])
    >>> doc = sarif_document([f], registry={})
    >>> res = doc["runs"][0]["results"][0]
    >>> res["ruleId"], res["level"], res["partialFingerprints"]
    ('graphkit/demo', 'error', {'graphkitFindingId/v1': 'GK-0123456789abcdef'})
    >>> res["locations"][0]["physicalLocation"]
    {'artifactLocation': {'uri': '.github/workflows/ci.yml', 'uriBaseId': '%SRCROOT%'}, 'region': {'startLine': 12}}
    """
    found = list(findings)
    root = input_root(e.file for f in found for e in f.evidence if _is_file(e) and not e.repository)
    reg = dict(rules() if registry is None else registry)
    descriptors = [_descriptor(r) for r in reg.values()]
    index = {r.id: i for i, r in enumerate(reg.values())}
    for f in found:
        if f.rule not in index:
            index[f.rule] = len(descriptors)
            descriptors.append({"id": sarif_rule_id(f.rule), "shortDescription": {"text": f.title},
                                "defaultConfiguration": {"level": SEVERITY_LEVEL[f.severity]}})
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "graphkit", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFORMATION_URI, "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": _BASES,
            "results": [_result(f, index[f.rule], root) for f in found],
        }],
    }


# --------------------------------------------------------------------------- OpenGraph


def opengraph_node_kind(kind: NodeKind) -> str:
    """Namespaced OpenGraph kind of a node kind: ``GK_`` + its Neo4j label.

    Examples
    --------
    >>> opengraph_node_kind(NodeKind.CLOUD_ROLE)
    'GK_CloudRole'
    """
    return KIND_PREFIX + NODE_TYPES[kind].spec.label


def opengraph_edge_kind(kind: EdgeKind) -> str:
    """Namespaced OpenGraph kind of an edge kind: ``GK_`` + CamelCase name.

    Examples
    --------
    >>> opengraph_edge_kind(EdgeKind.RECEIVES_JOB)
    'GK_ReceivesJob'
    """
    name = KIND_PREFIX + "".join(p.capitalize() for p in kind.value.split("_"))
    if not _KIND_OK.match(name):  # pragma: no cover - guarded by a meta-test over EDGE_SPECS
        raise ValueError(f"edge kind {kind.value!r} gives an invalid OpenGraph kind {name!r}")
    return name


def _flat(value: Any) -> Any:
    """A flat OpenGraph property value: primitive, homogeneous primitive list, or JSON text; None to drop."""
    if value is None:
        return None
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        items = [v for v in value if v is not None]
        if not items:
            return []
        if all(isinstance(v, str) for v in items):
            return list(items)
        if all(isinstance(v, bool) for v in items):
            return list(items)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            return list(items)
    return json.dumps(value, sort_keys=True, default=str)


def _evidence_strings(evidence: Iterable[Evidence]) -> list[str]:
    return [str(e) for e in evidence]


def _node_properties(node: Node) -> dict[str, Any]:
    data = node.model_dump(mode="json")
    props: dict[str, Any] = {"name": node.name, "displayname": node.name, "objectid": node.id,
                             "graphkit_kind": node.spec.kind.value}
    for key, value in data.items():
        if key in ("id", "name", "kind"):
            continue
        flat = _evidence_strings(node.evidence) if key == "evidence" else _flat(value)
        if flat is not None:
            props[key] = flat
    return props


def _fold(edges: list[Edge]) -> dict[str, Any]:
    first = edges[0]
    spec = EDGE_SPECS[first.kind]
    evidence: list[Evidence] = []
    for e in edges:
        evidence.extend(x for x in e.evidence if x not in evidence)
    certain = any(e.confidence is Confidence.CERTAIN for e in edges)
    props: dict[str, Any] = {
        "traversable": spec.traversable,
        "graphkit_kind": first.kind.value,
        "confidence": (Confidence.CERTAIN if certain else Confidence.POSSIBLE).value,
        "lifetime": first.lifetime.value if first.lifetime else spec.lifetime.value,
        "evidence": _evidence_strings(evidence),
        "instances": len(edges),
    }
    if first.revoked_by is not None:
        props["revoked_by"] = first.revoked_by.value
    keys = [e.key for e in edges if e.key]
    if keys:
        props["keys"] = keys
    return {"kind": opengraph_edge_kind(first.kind),
            "start": {"value": first.source, "match_by": "id"},
            "end": {"value": first.target, "match_by": "id"},
            "properties": props}


def opengraph_document(graph: Graph, *, traversable_only: bool = False) -> dict[str, Any]:
    """The graph as BloodHound OpenGraph JSON.

    Parameters
    ----------
    graph : Graph
        The typed graph.
    traversable_only : bool, default False
        Export only traversable edges (attack paths), leaving out structural
        facts such as ``has_workflow``.

    Returns
    -------
    dict
        ``{"metadata": {"source_kind": "GraphKit"}, "graph": {"nodes": [{id,
        kinds: ["GK_<Label>"], properties}], "edges": [{kind, start: {value,
        match_by: "id"}, end: {...}, properties: {traversable, confidence,
        lifetime, evidence, ...}}]}}``, nodes in id order, edges in (source,
        target, kind) order; validates against
        ``schemas/opengraph.schema.json``.

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Host, Runner
    >>> g = Graph()
    >>> g.update(nodes=[Host(id="host:h1", name="h1"), Runner(id="runner:acme/r1", name="r1", scope="acme")],
    ...          edges=[Edge(kind=EdgeKind.HOSTS, source="host:h1", target="runner:acme/r1",
    ...                      evidence=[Evidence(file="inventory.yaml", line=3)])])
    >>> doc = opengraph_document(g)
    >>> [n["kinds"] for n in doc["graph"]["nodes"]]
    [['GK_Host'], ['GK_Runner']]
    >>> e = doc["graph"]["edges"][0]
    >>> e["kind"], e["start"], e["properties"]["traversable"], e["properties"]["evidence"]
    ('GK_Hosts', {'value': 'host:h1', 'match_by': 'id'}, True, ['inventory.yaml:3'])
    """
    nodes = [{"id": n.id, "kinds": [opengraph_node_kind(n.spec.kind)], "properties": _node_properties(n)}
             for n in graph.nodes()]
    groups: dict[tuple[str, str, EdgeKind], list[Edge]] = {}
    for e in graph.edges():
        if traversable_only and not EDGE_SPECS[e.kind].traversable:
            continue
        groups.setdefault((e.source, e.target, e.kind), []).append(e)
    edges = [_fold(groups[k]) for k in sorted(groups, key=lambda k: (k[0], k[1], k[2].value))]
    return {"metadata": {"source_kind": OPENGRAPH_SOURCE_KIND}, "graph": {"nodes": nodes, "edges": edges}}
