"""Cross-source cloud linking: GitHub OIDC identities to AWS roles, named roles to ingested ones.

Runs inside :func:`graphkit.resolve.resolve` (pure graph -> graph, idempotent).
Inputs: :class:`~graphkit.model.OIDCIdentity` nodes (workflow ingestor),
:class:`~graphkit.model.CloudRole` nodes with ``trust_policy`` (AWS IAM
ingestor), ``graph.meta.runner_inventory.oidc_sub_templates``.

1. **Trust evaluation** (``shared/docs/semantics.md`` §4-§5): for every OIDC
   identity and every ingested AWS role whose trust policy has an
   ``sts:AssumeRoleWithWebIdentity`` statement, the candidate ``sub`` claims
   (:func:`graphkit.oidc.candidate_subjects`) are evaluated with
   :func:`graphkit.iam.web_identity_trust`; the job can assume the role when
   some candidate passes.  Edge ``oidc -> role`` ``assumes_role``:
   ``certain`` when decided on complete data, ``possible`` when it depends on
   an unknown (a branch name pattern, an unmodelled condition key).  Whether
   the workflow names the role does not matter: any job with
   ``id-token: write`` can call ``AssumeRoleWithWebIdentity`` on any role.
2. **Named roles**: the workflow ingestor's ``possible`` edges (``trust:
   unknown``) to a role that is now ingested are replaced by step 1's result
   (removed when the trust rejects the job).  A pattern role
   (``arn:aws:iam::111122223333:role/deploy-*``) whose account is ingested
   resolves to the matching roles: its possible edges are dropped (step 1
   links the real ones); roles of accounts not ingested stay ``trust:
   unknown`` with their ``possible`` edges.
3. **Instance profiles**: a ``cloud_role:aws:...:instance-profile/NAME`` node
   (a host credential grant in the runner inventory) gets ``assumes_role`` to
   the role of that instance profile.

Summary in ``graph.meta.cloud``: ``evaluated`` (pairs), ``denied`` (named
roles the trust rejects, ``oidc id -> role id``), ``resolved_patterns``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from graphkit.graph import Graph
from graphkit.iam import (PolicyError, Statement, Tri, and3, control_policy_decision, glob_match, oidc_trust_issues, or3,
                          parse_policy, web_identity_trust)
from graphkit.iam.evaluate import action_matches
from graphkit.meta import CloudSummary
from graphkit.model import (CloudPolicy, CloudRole, Confidence, Edge, EdgeKind, Evidence, Job, NodeKind, OIDCIdentity,
                            Repository, Workflow, ids)
from graphkit.oidc import (JobFacts, Run, claim_variants, is_github_issuer, issuer_host, runs_of, template_choices,
                          runs_of_refs)
from graphkit.refs import job_refs
from graphkit.resolve.context import nodes_of_kind
from graphkit.resolve.trust_index import TrustIndex

__all__ = ["link_cloud", "trust_documents", "trust_findings"]

_WEB_IDENTITY = "sts:AssumeRoleWithWebIdentity"


def _iam_evidence(role: Any) -> Evidence | None:
    """The evidence of the IAM export entry of a role (not of a workflow naming it)."""
    for e in role.evidence:
        if e.yaml_path and (e.yaml_path.startswith("RoleDetailList") or e.yaml_path == "Role"):
            return e
    return role.evidence[0] if role.evidence else None


def statement_line(node: Any, statement: Statement) -> int | None:
    """The line of a statement of a role's trust policy or of a policy document in the file of the node's IAM
    evidence (``statement_lines``, by the statement's index), None when not known."""
    lines = getattr(node, "statement_lines", None)
    return lines[statement.index] or None if lines and statement.index < len(lines) else None


def _statements(role: CloudRole) -> list[Statement] | None:
    if role.trust_policy is None:
        return None
    try:
        return parse_policy(role.trust_policy)
    except PolicyError:
        return None


def _job_facts(graph: Graph, identity: OIDCIdentity, templates: dict[str, Any]) -> JobFacts:
    """What the graph knows of the token of ``identity`` (:class:`graphkit.oidc.JobFacts`).

    The triggering workflow (the top caller's) gives ``workflow_path`` and the ``workflow`` name; the
    inventory's OIDC facts give the ``sub`` template, the numeric ids and ``use_immutable_subject`` (repository
    setting, else the organization's; default: the name-based format); the called workflow's repository its
    default branch (to write ``job_workflow_ref`` with the full ref).
    """
    repo = identity.repository
    job = next((graph.node(u) for u, _, d in graph.nx.in_edges(identity.id, data=True)
                if d["kind"] == EdgeKind.MINTS_OIDC.value), None)
    runs = _runs(graph, identity, job, templates)
    while isinstance(job, Job) and job.caller and job.caller in graph:
        job = graph.node(job.caller)
    path = wf_name = None
    if isinstance(job, Job):
        path = job.workflow_path
        wid = ids.workflow(job.repository, job.workflow_path)
        wf = graph.node(wid) if wid in graph else None
        wf_name = wf.name if isinstance(wf, Workflow) and not wf.inferred else None
    own = templates.get(repo.lower()) or {}
    org = templates.get(repo.split("/", 1)[0].lower()) or {}
    immutable = own.get("use_immutable_subject", org.get("use_immutable_subject", False))
    branches: tuple[str, ...] = ()
    if identity.job_workflow_ref:
        try:
            callee = ids.repository("/".join(identity.job_workflow_ref.split("/", 2)[:2]))
        except ids.IdError:
            callee = ""
        node = graph.node(callee) if callee in graph else None
        if isinstance(node, Repository) and node.default_branch:
            branches = (node.default_branch,)
    choices = template_choices(templates, repo)  # two when the repository's opt-in is unknown
    return JobFacts(repository=repo, runs=runs, workflow_path=path, workflow=wf_name,
                    called_ref=identity.job_workflow_ref, template=choices[0],
                    template_unknown=choices[1] if len(choices) > 1 else None,
                    owner_id=_id(org.get("owner_id")), repository_id=_id(own.get("repository_id")),
                    immutable=immutable, branches=branches, host=issuer_host(identity.issuer))


def _runs(graph: Graph, identity: OIDCIdentity, job: Any, templates: dict[str, Any]) -> tuple[Run, ...]:
    """The runs of the job: per ref of its events (``Job.triggers``, :func:`graphkit.refs.job_refs`, the caller's
    for a called workflow, the repository's default branch when known), with its environment; else from the
    default-template subjects the workflow ingestor wrote.  A reusable workflow's own instance adds the runs of
    callers graphkit did not read (:func:`_unknown_callers`)."""
    from_subjects = runs_of(workflow_subjects(identity))
    if not isinstance(job, Job) or not job.triggers:
        return tuple(from_subjects)
    rid = ids.repository(identity.repository)
    repo = graph.node(rid) if rid in graph else None
    default = repo.default_branch if isinstance(repo, Repository) else None
    envs = list(dict.fromkeys(r.environment for r in from_subjects if r.environment is not None))
    refsets = [(rs.event, rs.patterns) for rs in job_refs(job, default) if rs.event != "workflow_call"]
    runs = runs_of_refs(refsets, envs)
    if envs and any(r.environment is None for r in from_subjects):  # an environment that may be empty: runs without
        runs = list(dict.fromkeys(runs + runs_of_refs(refsets)))
    if any(rs.event == "workflow_call" for rs in job_refs(job, default)):
        # a reusable workflow's own instance (or a job it calls: its triggers are the top's): callers graphkit
        # did not read (GitHub "Reusing workflows")
        env = job.environment if job.environment and "${{" not in job.environment else None
        runs += _unknown_callers(graph, job, Run(f"environment:{env}" if env else "*", "refs/*", env,
                                                 caller_unknown=True), templates)
    return tuple(runs or from_subjects)


def _unknown_callers(graph: Graph, job: Job, run: Run, templates: dict[str, Any]) -> list[Run]:
    """``run`` (a caller graphkit did not read) once per caller scope the graph routes the job through.

    A called workflow runs on the caller's runners and its token's ``sub`` and ``repository`` are the caller's
    (https://docs.github.com/en/actions/sharing-automations/reusing-workflows,
    https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect);
    a runner takes only jobs of its scope (:func:`graphkit.resolve.routing.caller_scopes`).  So on the paths
    the graph has into the job (a runner it is routed to) the caller is a repository of that runner's owner.
    The caller stays any repository when nothing routes the job, or when the owner may have a custom ``sub``
    template (an org ``include_claim_keys``, or any repository entry of the owner); both subject formats are
    alternatives when the owner's ``use_immutable_subject`` is None in ``templates``.
    """
    from graphkit.resolve.routing import caller_scopes

    scopes = caller_scopes(graph, job.id)
    if not scopes:
        return [run]
    out: list[Run] = []
    for scope in scopes:
        owner, _, name = scope.partition("/")
        org = templates.get(owner) or {}
        if org.get("include_claim_keys") or any(k.startswith(f"{owner}/") for k in templates):
            return [run]
        immutable = org.get("use_immutable_subject", False)
        forms = [False, True] if immutable is None else [bool(immutable)]
        ids_ = f"@{org['owner_id']}" if org.get("owner_id") is not None else "@*"
        out += [replace(run, caller=f"{owner}{ids_}/{name}{'' if name == '*' else '@*'}" if imm else scope)
                for imm in forms]
    return out


def workflow_subjects(identity: OIDCIdentity) -> list[str]:
    """The default-template subjects the workflow ingestor wrote (``OIDCIdentity.workflow_subjects``, else
    ``subjects`` before :func:`presented_subjects` replaced them): what the evaluation starts from."""
    return identity.subjects if identity.workflow_subjects is None else identity.workflow_subjects


def presented_subjects(variants: list) -> list[str]:
    """The ``sub`` values a token presents (:func:`graphkit.oidc.claim_variants` of its facts, every run and
    variant, in order): what the trust evaluation matches, and so what ``OIDCIdentity.subjects`` shows."""
    return list(dict.fromkeys(sub for runs in variants for _, _, sub in runs if sub))


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def _partition(arn: str) -> str:
    """The partition of an ARN (``aws``, ``aws-us-gov``, ``aws-cn``)."""
    return arn.split(":", 2)[1] if arn.startswith("arn:") and arn.count(":") >= 2 else "aws"


def _rcp_levels(graph: Graph, account: str | None) -> list[list[Statement] | None]:
    """The RCP levels of ``account`` (``meta.aws_iam.control_policies``): they cap ``AssumeRoleWithWebIdentity``
    on its roles, with the token's claims as condition keys (AWS Organizations "Resource control policies",
    https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html)."""
    summary = graph.meta.aws_iam
    levels = (summary.control_policies.get("rcp") or {}).get(account or "") if summary else None
    out: list[list[Statement] | None] = []
    for level in levels or []:
        try:
            out.append(None if level is None else [s for doc in level for s in parse_policy(doc)])
        except PolicyError:
            out.append(None)
    return out


def _evaluate(facts: JobFacts, role: CloudRole, statements: list[Statement],
              rcps: list[list[Statement] | None] | None = None,
              variants: list | None = None) -> tuple[Tri, list[str], list[Statement]]:
    """(result, matching subjects, deciding statements) of one job's token against one role.

    OR over the runs the attacker picks, then every unknown-fact variant must agree
    (:func:`graphkit.oidc.claim_variants`): True in all -> True, False in all -> False, else None.  ``rcps``:
    the role account's RCP levels, evaluated with the same claims.  ``variants``: ``claim_variants(facts)`` when
    the caller computed them once for every role.
    """
    per_variant: list[Tri] = []
    result: Tri
    subs: list[str] = []
    decided: list[Statement] = []
    partition = _partition(role.identifier)
    for runs in (claim_variants(facts) if variants is None else variants):
        best: Tri = False
        for ctx, known, sub in runs:
            m = web_identity_trust(statements, role.account or "", ctx, known_keys=known, provider_host=facts.host,
                                   partition=partition)
            result = m.result
            if rcps and result is not False:
                result = and3([result, control_policy_decision(rcps, "sts:AssumeRoleWithWebIdentity",
                                                               role.identifier, context=ctx, known_keys=known)])
            if result is False:
                continue
            subs.append(sub)
            decided += [s for s in m.allows if s not in decided]
            best = or3([best, result])
        per_variant.append(best)
    if all(r is True for r in per_variant):
        result = True
    elif all(r is False for r in per_variant):
        result = False
    else:
        result = None
    return result, list(dict.fromkeys(subs)), decided


def _spelt(facts: JobFacts, names: dict[str, str]) -> tuple[JobFacts, bool]:
    """``facts`` with the repository spelt as the inventory spells it (GitHub's spelling, the one OIDC claims
    carry), and whether the spelling is known: the inventory's, or one with capitals (a name written all in lower
    case may be a lower-cased copy, e.g. a checkout's ``owner__name`` folder; one with capitals was not lower-cased).
    """
    spelt = names.get(facts.repository.lower())
    if spelt:
        return (facts if spelt == facts.repository else replace(facts, repository=spelt)), True
    return facts, facts.repository != facts.repository.lower()


def _decide(facts: JobFacts, spelling_known: bool, role: CloudRole, statements: list[Statement],
            rcps: list[list[Statement] | None], variants: list) -> tuple[Tri, list[str], list[Statement]]:
    """:func:`_evaluate`, and when the repository's spelling is not known, :func:`_other_spelling`."""
    base = _evaluate(facts, role, statements, rcps, variants)
    return base if spelling_known else _other_spelling(facts, role, statements, rcps, base)


def _other_spelling(facts: JobFacts, role: CloudRole, statements: list[Statement], rcps: list[list[Statement] | None],
                    base: tuple[Tri, list[str], list[Statement]]) -> tuple[Tri, list[str], list[Statement]]:
    """``base`` (:func:`_evaluate`'s answer), unless the trust spells the owner or repository name in another case
    and the answer under that spelling differs: then ``None`` (possible), with the subjects and statements of the
    spelling that lets the token in.

    GitHub owner and repository names are case-insensitive, but the claims (``sub``, ``repository``,
    ``job_workflow_ref``) carry GitHub's spelling and ``StringEquals``/``StringLike`` compare it case-sensitively
    (AWS "Condition operators", string condition operators,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_String).
    The spelling graphkit has comes from its source (a checkout's folder or remote, an inventory), which may not be
    GitHub's: a trust written in another spelling (``repo:Acme/App:*`` for a checkout of ``acme/app``) accepts the
    token if that spelling is GitHub's, and one that excludes it (``StringNotLike``) rejects it -- possible either
    way, never a certain answer.
    """
    result, subs, decided = base
    for spelling in _spellings(facts.repository, statements):
        other = _evaluate(replace(facts, repository=spelling), role, statements, rcps)
        if other[0] != result:
            return None, *(other[1:] if result is False else (subs, decided))
    return base


def _spellings(repository: str, statements: list[Statement]) -> list[str]:
    """Other spellings of ``OWNER/NAME`` (case-insensitively equal) that the condition values of ``statements``
    write: the owner where followed by ``/`` or ``@`` (immutable subjects), with the name when it follows."""
    owner, _, name = repository.partition("/")
    lo, ln = owner.lower(), name.lower()
    found: dict[str, None] = {}
    for st in statements:
        for block in st.conditions.values():
            for value in (v for values in block.values() for v in values):
                low, at = value.lower(), value.lower().find(lo)
                while at != -1 and len(found) < 8:
                    end = at + len(lo)
                    if low[end:end + 1] in ("/", "@") and (at == 0 or not low[at - 1].isalnum()):
                        rest = value[end:].lstrip("@0123456789*").removeprefix("/")
                        spelt = rest[:len(name)] if rest[:len(name)].lower() == ln else name
                        found[f"{value[at:end]}/{spelt}"] = None
                    at = low.find(lo, at + 1)
    return [s for s in found if s != repository]


def link_cloud(graph: Graph) -> None:
    """Add OIDC -> role, pattern-role and instance-profile edges (see module docstring).

    Parameters
    ----------
    graph : Graph
        After every ingestor ran.

    Returns
    -------
    None
        ``graph`` is changed in place; ``graph.meta.cloud`` summarises.

    Raises
    ------
    GraphkitError
        only if the graph breaks the model.
    """
    roles = [r for r in nodes_of_kind(graph, NodeKind.CLOUD_ROLE) if isinstance(r, CloudRole) and r.provider == "aws"]
    known = {r.identifier: r for r in roles if r.trust == "known"}
    prev = graph.meta.cloud or CloudSummary()
    # a trust holding a key twice is unknown but evaluated over every reading (its edges only possible)
    evaluable = [r for r in roles if r.trust == "known" or r.trust_policy is not None]
    evaluated, denied = _link_oidc(graph, evaluable, graph.meta.inventory.oidc_sub_templates)
    resolved = _resolve_pattern_roles(graph, roles, known)
    _link_instance_profiles(graph, roles, known)
    graph.meta.cloud = CloudSummary(evaluated=evaluated, denied=sorted(set(prev.denied) | denied),
                                    resolved_patterns=sorted(set(prev.resolved_patterns) | resolved))


def _link_oidc(graph: Graph, known: list[CloudRole], templates: dict[str, Any]) -> tuple[int, set[str]]:
    """Step 1 and 2: evaluate every GitHub OIDC identity against every ingested trust policy.

    One token is evaluated once per distinct trust (:func:`_same_trust`): roles of one account with equal trust
    statements (an org-wide trust copied on many roles) give the same answer (issue 19: the pairs grow as
    identities x org-wide roles).

    Returns
    -------
    (evaluated, denied)
        Pairs evaluated; ``oidc id -> role id`` of named roles whose trust rejects the job.
    """
    trusts = {r.id: st for r in known if (st := _statements(r))}
    identities = [o for o in nodes_of_kind(graph, NodeKind.OIDC_IDENTITY) if isinstance(o, OIDCIdentity)
                  and is_github_issuer(issuer_host(o.issuer))]
    evaluated = 0
    denied: set[str] = set()
    rcps: dict[str | None, list[list[Statement] | None]] = {}  # per account: parsed once, not once per pair
    index = TrustIndex(trusts)  # the roles a token may pass: the others reject it (no need to evaluate)
    order = sorted(trusts)
    roles: dict[str, _Role] = {}  # per role: its node, IAM evidence and trust class, read once
    names = graph.meta.inventory.repository_names
    for o in identities:
        facts = _job_facts(graph, o, templates)
        facts, spelling_known = _spelt(facts, names)
        variants = claim_variants(facts)  # the same for every role
        subjects = presented_subjects(variants)
        if subjects and subjects != o.subjects:  # the node shows what the evaluation uses (idempotent)
            graph.replace_node(o.model_copy(update={"subjects": subjects, "workflow_subjects": workflow_subjects(o)}))
        evaluated += len(order)
        # the pairs evaluated: the index's candidates, and the roles the workflow names (their edges are replaced)
        wanted = index.candidates(c for runs in variants for c in runs)
        wanted.update(rid for rid in graph.nx.succ[o.id] if rid in trusts)
        results: dict[tuple, _Found] = {}  # per trust class, for this token
        for rid in sorted(wanted):
            statements = trusts[rid]
            role = roles.get(rid)
            if role is None:
                node = graph.node(rid)
                assert isinstance(node, CloudRole)
                if node.account not in rcps:
                    rcps[node.account] = _rcp_levels(graph, node.account)
                role = roles[rid] = _Role(node, _iam_evidence(node), _same_trust(node, statements, rcps[node.account]))
            found = results.get(role.trust)
            if found is None:
                result, subs, decided = _decide(facts, spelling_known, role.node, statements,
                                                rcps[role.node.account], variants)
                props = None if result is False else graph.shared_props(
                    {"via": "oidc", "trust": "evaluated", "subjects": subs[:5], "named": False})
                found = results[role.trust] = result, subs, decided, props
            if _link_pair(graph, o, role, found):
                denied.add(f"{o.id} -> {rid}")
    return evaluated, denied


class _Role:
    """A role of :func:`_link_oidc`: its node, the evidence of its IAM entry, its trust class
    (:func:`_same_trust`) and the evidence of each deciding statement (made once per role)."""

    __slots__ = ("node", "base", "trust", "statement_evidence", "decided_evidence")

    def __init__(self, node: CloudRole, base: Evidence | None, trust: tuple) -> None:
        self.node, self.base, self.trust = node, base, trust
        self.statement_evidence: dict[tuple[str, str | None], Evidence] = {}
        #: ids of deciding statements (alive: the parsed trusts of the link) -> their evidence, in order
        self.decided_evidence: dict[tuple[int, ...], list[Evidence]] = {}

    def evidence_of(self, decided: list[Statement]) -> list[Evidence]:
        """``[self.evidence(s) for s in decided]``, a new list (made once per list of statements)."""
        key = tuple(map(id, decided))
        got = self.decided_evidence.get(key)
        if got is None:
            got = self.decided_evidence[key] = [self.evidence(s) for s in decided]
        return list(got)

    def evidence(self, s: Statement) -> Evidence:
        """The evidence of a deciding statement of this role's trust (its place in the IAM export entry)."""
        k = (s.place, s.sid)
        ev = self.statement_evidence.get(k)
        if ev is None:
            base = self.base
            ev = self.statement_evidence[k] = Evidence(
                file=base.file if base else "aws-iam",
                yaml_path=f"{base.yaml_path}.AssumeRolePolicyDocument.{s.place}" if base and base.yaml_path
                else s.place, line=statement_line(self.node, s), detail=s.sid)
        return ev


def _same_trust(role: CloudRole, statements: list[Statement], rcps: list[list[Statement] | None]) -> tuple:
    """What :func:`_evaluate` reads of a role besides the token: equal for two roles, equal answers.

    The statements that apply to ``sts:AssumeRoleWithWebIdentity`` (their full text: values, places, sids; the
    others are skipped by :func:`graphkit.iam.web_identity_trust`), the account, the partition, and the role's
    ARN only when RCPs apply to its account (their ``Resource`` is matched against it).
    """
    acting = [st for st in statements if (action_matches(st.actions, _WEB_IDENTITY) if st.actions else
                                          bool(st.not_actions) and not action_matches(st.not_actions, _WEB_IDENTITY))]
    return (repr(acting), role.account or "", _partition(role.identifier), role.identifier if rcps else None)


#: what :func:`_evaluate` answered (result, subjects, deciding statements), and the graph's shared props of the
#: evaluated edge when no edge named the role
_Found = tuple[Tri, list[str], list[Statement], Any]


def _link_pair(graph: Graph, o: OIDCIdentity, role: _Role, found: _Found) -> bool:
    """Replace the workflow's ``trust: unknown`` edges ``o -> role`` by the evaluated edge (none when the trust
    rejects every candidate subject); returns True when a role the workflow names was denied.  ``found``: what
    :func:`_evaluate` answered for the token and the role's trust (:data:`_Found`)."""
    result, subs, decided, props = found
    rid = role.node.id
    if rid not in graph.nx._succ[o.id]:  # no edge between them: nothing named, nothing to replace
        named: list[dict[str, Any]] = []
    else:
        named = _take_named_edges(graph, o.id, rid)
        still_named = any(d["edge"].props.get("named") for d in (graph.nx.get_edge_data(o.id, rid) or {}).values())
        props = {"via": "oidc", "trust": "evaluated", "subjects": subs[:5], "named": bool(named) or still_named}
    if result is False:
        return bool(named)
    evidence = [ev for d in named for ev in d["edge"].evidence] if named else []
    evidence += role.evidence_of(decided)
    graph.add_edge_fields(EdgeKind.ASSUMES_ROLE, o.id, rid, evidence or list(o.evidence),
                          confidence=Confidence.CERTAIN if result is True and role.node.trust == "known"
                          else Confidence.POSSIBLE, props=props)
    return False


def _take_named_edges(graph: Graph, source: str, target: str) -> list[dict[str, Any]]:
    """Remove and return the ``assumes_role`` edges of ``trust: unknown`` (a workflow naming the role)."""
    data = graph.nx.get_edge_data(source, target) or {}
    named = {k: d for k, d in data.items()
             if d["kind"] == EdgeKind.ASSUMES_ROLE.value and d["edge"].props.get("trust") == "unknown"}
    for key in named:
        graph.nx.remove_edge(source, target, key)
    return list(named.values())


def _resolve_pattern_roles(graph: Graph, roles: list[CloudRole], known: dict[str, CloudRole]) -> set[str]:
    """Step 2: a pattern role of an ingested account loses its possible OIDC edges (step 1 linked the real
    roles); returns ``pattern id -> matching ARNs`` lines."""
    ingested_accounts = {r.account for r in known.values() if r.account}
    resolved: set[str] = set()
    for r in roles:
        if not r.pattern or r.trust == "known" or not r.account or r.account not in ingested_accounts:
            continue
        matches = [k for k in known if glob_match(r.identifier, k)]
        for u, _, key, d in list(graph.nx.in_edges(r.id, keys=True, data=True)):
            if d["kind"] == EdgeKind.ASSUMES_ROLE.value and graph.node(u).spec.kind is NodeKind.OIDC_IDENTITY:
                graph.nx.remove_edge(u, r.id, key)
        resolved.add(f"{r.id} -> {', '.join(sorted(matches)) or 'no role'}")
    return resolved


def _link_instance_profiles(graph: Graph, roles: list[CloudRole], known: dict[str, CloudRole]) -> None:
    """Step 3: an ``...:instance-profile/NAME`` role node (a host credential grant) assumes the role of that
    instance profile."""
    by_profile = {ip: r for r in known.values() for ip in r.instance_profiles}
    for r in roles:
        if ":instance-profile/" in r.identifier and r.identifier in by_profile:
            target = by_profile[r.identifier]
            graph.add_edge(Edge(kind=EdgeKind.ASSUMES_ROLE, source=r.id, target=target.id,
                                evidence=list(target.evidence[:1]) or list(r.evidence[:1]),
                                props={"via": "instance profile"}))


def trust_documents(graph: Graph) -> Iterator[tuple[str, list[Statement], list[Evidence], str | None]]:
    """``(subject id, statements, evidence, account)`` of every trust policy in the graph.

    Ingested roles (``CloudRole.trust_policy``) and trust documents read from
    files (``CloudPolicy`` of ``policy_type`` trust: CloudFormation roles,
    templates).  Unreadable documents are skipped (the ingestor reported them).
    """
    for node in graph.nodes():
        doc = None
        if isinstance(node, CloudRole) and node.trust_policy is not None:
            doc, account = node.trust_policy, node.account
        elif isinstance(node, CloudPolicy) and node.policy_type == "trust" and node.document is not None:
            doc, account = node.document, node.account
        if doc is None:
            continue
        try:
            statements = parse_policy(doc)
        except PolicyError:
            continue
        base = _iam_evidence(node)
        yield node.id, statements, [base] if base else [], account


def trust_findings(rule: Any, graph: Graph, codes: dict[str, tuple[Any, str]]) -> Iterator[Any]:
    """Findings of ``rule`` for the :func:`graphkit.iam.oidc_trust_issues` whose code is in ``codes``.

    ``codes`` maps an issue code (``gitlab:CODE`` for a GitLab ID token trust, the instances being ``gitlab.com``
    and those the graph's GitLab nodes name) to ``(severity, message template)``; the
    severity may be a function ``(graph, issue) -> Severity``; the template
    may use ``{subject}``, ``{value}``, ``{operator}``.  Identity of a
    finding: rule, subject node id, statement ``Sid`` (or index), issue code
    and value -- never a line number.
    """
    from graphkit.resolve.gitlab import GitLabContext  # resolve imports this module: import at call time

    gitlab_hosts = {"gitlab.com", *GitLabContext.of(graph).instances}
    for subject, statements, evidence, _ in trust_documents(graph):
        for issue in oidc_trust_issues(statements, gitlab_hosts=gitlab_hosts):
            code = issue.code if issue.platform == "github" else f"{issue.platform}:{issue.code}"
            if code not in codes:
                continue
            severity, template = codes[code]
            if callable(severity):
                severity = severity(graph, issue)
            st = issue.statement
            base = evidence[0] if evidence else Evidence(file="graph")
            place = f"{base.yaml_path}." if base.yaml_path else ""
            if isinstance(graph.node(subject), CloudRole):
                place += "AssumeRolePolicyDocument."
            ev = base.model_copy(update={"yaml_path": (place + st.place).strip(".") or None,
                                         "line": statement_line(graph.node(subject), st),
                                         "detail": issue.value or None})
            yield rule.finding(subject, st.sid or f"#{st.index}", code, issue.value, subject=subject,
                               severity=severity, evidence=[ev],
                               message=template.format(subject=graph.node(subject).name, value=issue.value,
                                                       operator=issue.operator),
                               code=code, value=issue.value, operator=issue.operator,
                               statement=st.sid or st.place)
