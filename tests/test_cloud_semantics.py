"""Trust policies, OIDC claims and Kubernetes RBAC against what AWS and Kubernetes document, on the shapes of
public bug reports (each test names its report and the documentation it follows)."""

import json
import shutil
from pathlib import Path

from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.iam import ClaimValue, parse_policy, principal_trust, web_identity_trust
from graphkit.model import EdgeKind, ids
from graphkit.resolve import resolve
from ingest import aws_iam
from ingest.github_actions import parse_workflow, to_graph

A = "111122223333"
HOST = "token.actions.githubusercontent.com"
PROVIDER = f"arn:aws:iam::{A}:oidc-provider/{HOST}"


def graph_of(export: dict, *workflows: tuple[str, str]) -> Graph:
    """One IAM export and workflows ``(repository, text)``, resolved."""
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps(export), "iam.json")])
    assert iam.problems == []
    res = to_graph([parse_workflow(text, file=".github/workflows/w.yml", repository=repo) for repo, text in workflows])
    g = Graph()
    g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
    g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
    resolve(g)
    return g


def role(name: str, statements: list, inline: list | None = None) -> dict:
    return {"RoleName": name, "Arn": f"arn:aws:iam::{A}:role/{name}", "Path": "/",
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": statements},
            "RolePolicyList": [{"PolicyName": "p", "PolicyDocument": {"Version": "2012-10-17", "Statement": inline}}]
            if inline else [], "AttachedManagedPolicies": [], "InstanceProfileList": []}


def R(name: str) -> str:
    return ids.cloud_role("aws", f"arn:aws:iam::{A}:role/{name}")


def assumers(g: Graph, target: str) -> dict[str, str]:
    return {e.source: e.confidence.value for e in g.edges(EdgeKind.ASSUMES_ROLE) if e.target == target}


#: the caller: a role allowed by its own policy to assume any role
CALLER = role("ci-runner", [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": "ec2.amazonaws.com"}}],
              [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}])


def _assume(principal: object) -> dict:
    return {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}


def test_a_wildcard_inside_a_principal_names_no_one():
    """"Unsupported Wildcard In Principal" (https://elasticscale.cloud/how-to-overcome-unsupported-wildcard-in-principal/:
    ``"AWS": "arn:aws:iam::ACCOUNT:role/myspecialiamrole*"``) and ``"AWS": "arn:aws:iam::*:root"`` (listed as "any
    account" in https://github.com/JamesWoolfenden/pike/issues/139): AWS "You can't use a wildcard to match part of
    a principal name or ARN" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html).
    graphkit matched them as globs: ``role/ci-*`` let ``ci-runner`` in (certain)."""
    export = {"RoleDetailList": [CALLER,
                                 role("glob-role", [_assume({"AWS": f"arn:aws:iam::{A}:role/ci-*"})]),
                                 role("glob-acct", [_assume({"AWS": "arn:aws:iam::*:root"})]),
                                 role("glob-q", [_assume({"AWS": f"arn:aws:iam::{A}:role/ci-runne?"})]),
                                 role("star", [_assume({"AWS": "*"})]),
                                 role("exact", [_assume({"AWS": f"arn:aws:iam::{A}:role/ci-runner"})])],
              "UserDetailList": [], "GroupDetailList": [], "Policies": []}
    g = graph_of(export)
    assert assumers(g, R("glob-role")) == {}
    assert assumers(g, R("glob-acct")) == {}
    assert assumers(g, R("glob-q")) == {}
    assert assumers(g, R("star")) == {R("ci-runner"): "certain"}
    assert assumers(g, R("exact")) == {R("ci-runner"): "certain"}
    assert ids.cloud_account("*") not in g  # no node for the "account" '*'
    st = parse_policy({"Statement": [_assume({"AWS": "arn:aws:iam::*:root"})]})
    assert principal_trust(st, f"arn:aws:iam::{A}:role/ci-runner", A, A)[0] is False


def test_a_wildcard_inside_a_federated_principal_names_no_provider():
    """Same rule for ``Principal.Federated``: ``oidc-provider/*`` names no OIDC provider, so no GitHub job assumes
    the role (before: certain for every job of every repository)."""
    wf = ("on: {push: {branches: [main]}}\npermissions: {id-token: write}\njobs:\n  d:\n    runs-on: ubuntu-latest\n"
          f"    steps:\n      - uses: aws-actions/configure-aws-credentials@v4\n        with: {{role-to-assume: 'arn:aws:iam::{A}:role/deploy', aws-region: us-east-1}}\n")
    trust = [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
              "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/*"},
              "Condition": {"StringEquals": {f"{HOST}:aud": "sts.amazonaws.com"}}}]
    g = graph_of({"RoleDetailList": [role("deploy", trust)]}, ("acme/app", wf))
    assert assumers(g, R("deploy")) == {}
    trust[0]["Principal"] = {"Federated": PROVIDER}
    g = graph_of({"RoleDetailList": [role("deploy", trust)]}, ("acme/app", wf))
    assert list(assumers(g, R("deploy")).values()) == ["certain"]


def test_not_principal_takes_no_part_in_a_trust_policy():
    """AWS "AWS JSON policy elements: NotPrincipal"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html): "You cannot use
    the NotPrincipal element in an IAM identity-based policy nor in an IAM role trust policy", and with Allow it "is
    not supported" (an IAM evaluator that honoured it: https://github.com/noobaa/noobaa-core/pull/9828).  graphkit
    made every caller ``possible`` for an Allow + NotPrincipal trust, and a Deny + NotPrincipal made an
    unconditional trust ``possible``."""
    export = {"RoleDetailList": [
        CALLER,
        role("allow-not", [{"Effect": "Allow", "Action": "sts:AssumeRole", "NotPrincipal": {"AWS": f"arn:aws:iam::{A}:user/bob"}}]),
        role("deny-not", [_assume({"AWS": f"arn:aws:iam::{A}:root"}),
                          {"Effect": "Deny", "Action": "sts:AssumeRole", "NotPrincipal": {"AWS": f"arn:aws:iam::{A}:user/bob"}}])]}
    g = graph_of(export)
    assert assumers(g, R("allow-not")) == {}
    assert assumers(g, R("deny-not")) == {R("ci-runner"): "certain"}
    st = parse_policy({"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                      "NotPrincipal": {"Federated": "arn:aws:iam::2:oidc-provider/x"}}]})
    sub = ClaimValue("repo:acme/app:ref:refs/heads/main")
    assert web_identity_trust(st, A, {f"{HOST}:sub": [sub]}).result is False


# --------------------------------------------------------------------------- Kubernetes

K8S_FIX = Path(__file__).resolve().parent / "fixtures" / "k8s" / "prod-eu"
CLUSTER = "https://prod-eu.k8s.example.com"
RUNNER_SA = ids.k8s_service_account(CLUSTER, "arc-runners", "arc-runner")
DIND = ids.runner("acme", "arc-dind")


def _cluster(tmp_path: Path, runners_yaml: str, *extra: str) -> Graph:
    """The fixture cluster ``prod-eu`` with ``arc-runners.yaml`` replaced and ``extra`` manifests added."""
    for f in K8S_FIX.iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "arc-runners.yaml").write_text(runners_yaml)
    for i, text in enumerate(extra):
        (tmp_path / f"extra{i}.yaml").write_text(text)
    res = build_graph({"k8s": [tmp_path]})
    assert res.problems == []
    return res.graph


def _sa_edges(g: Graph) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in g.edges(EdgeKind.USES_SERVICE_ACCOUNT)}


def test_service_account_automount_false_keeps_the_token_out_of_pods_that_do_not_set_it(tmp_path):
    """Kubernetes "Configure Service Accounts for Pods"
    (https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting):
    ``automountServiceAccountToken: false`` on the ServiceAccount opts its pods out, and "The pod spec takes
    precedence over the service account if both specify a automountServiceAccountToken value" (the check KubiScan
    and rbac-police make before counting a pod's token).  graphkit read only the PodSpec's value: an ARC runner of
    a ServiceAccount that opts out held its token."""
    text = (K8S_FIX / "arc-runners.yaml").read_text()
    (tmp_path / "a").mkdir()
    assert (DIND, RUNNER_SA) in _sa_edges(_cluster(tmp_path / "a", text))
    opted_out = text.replace("  name: arc-runner\n  namespace: arc-runners\n",
                             "  name: arc-runner\n  namespace: arc-runners\nautomountServiceAccountToken: false\n", 1)
    assert opted_out != text
    (tmp_path / "b").mkdir()
    assert (DIND, RUNNER_SA) not in _sa_edges(_cluster(tmp_path / "b", opted_out))
    pod_wins = opted_out.replace("      serviceAccountName: arc-runner\n",
                                 "      serviceAccountName: arc-runner\n      automountServiceAccountToken: true\n", 1)
    (tmp_path / "c").mkdir()
    assert (DIND, RUNNER_SA) in _sa_edges(_cluster(tmp_path / "c", pod_wins))


AGGREGATION = """
apiVersion: v1
kind: Secret
metadata: {name: grafana-admin, namespace: monitoring}
stringData: {password: placeholder}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: metrics, namespace: monitoring}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: viewer, namespace: monitoring}
---
# the "monitoring" example of the Kubernetes docs ("Aggregated ClusterRoles")
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: monitoring}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels:
      rbac.example.com/aggregate-to-monitoring: "true"
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-secrets
  labels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules:
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
---
# a chart's role aggregated into the default view ClusterRole (the docs' "aggregate-cron-tabs-view" shape)
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aggregate-cron-tabs-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: ["stable.example.com", ""]
  resources: [crontabs, secrets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: metrics-monitoring}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: monitoring}
subjects: [{kind: ServiceAccount, name: metrics, namespace: monitoring}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewer-view, namespace: monitoring}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: viewer, namespace: monitoring}]
"""


def test_aggregated_cluster_roles_grant_the_rules_of_the_roles_they_select(tmp_path):
    """Kubernetes "Using RBAC Authorization", "Aggregated ClusterRoles" and "User-facing roles"
    (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#aggregated-clusterroles): the control plane fills
    an aggregated ClusterRole with the rules of the ClusterRoles its selectors match, and the default ``view`` takes
    every ClusterRole labelled ``rbac.authorization.k8s.io/aggregate-to-view: "true"`` (the aggregation KubiScan
    and rbac-police resolve before judging a binding).  graphkit read the aggregated role's empty ``rules`` and
    ``view`` as reading no Secret: both service accounts below read none."""
    g = _cluster(tmp_path, (K8S_FIX / "arc-runners.yaml").read_text(), AGGREGATION)

    def reads(ns: str, name: str) -> set[str]:
        sa = ids.k8s_service_account(CLUSTER, ns, name)
        return {e.target for e in g.edges(EdgeKind.READS_SECRET) if e.source == sa}

    secret = lambda ns, name: ids.k8s_secret(CLUSTER, ns, name)  # noqa: E731
    assert reads("monitoring", "metrics") == {secret("monitoring", "grafana-admin"), secret("arc-runners", "prod-db"),
                                              secret("arc-runners", "arc-github-app")}
    assert reads("monitoring", "viewer") == {secret("monitoring", "grafana-admin")}  # its RoleBinding's namespace only


def test_aggregation_selectors_read_match_expressions_and_nest():
    """``matchExpressions`` (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``: Kubernetes "Labels and Selectors",
    https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/) and nesting: a role aggregated into
    ``view`` reaches ``edit`` and ``admin`` (the defaults' own aggregation labels)."""
    from ingest.k8s.models import LabelSelector, RoleDoc, Rule, Where
    from ingest.k8s.rbac import aggregated_rules

    w = Where(file="r.yaml")
    r = lambda res: [Rule(api_groups=[""], resources=[res], verbs=["get"])]  # noqa: E731
    sel = lambda *e: [LabelSelector(match_expressions=list(e))]  # noqa: E731
    roles = {(n, None): d for n, d in {
        "a": RoleDoc(name="a", rules=r("secrets"), labels={"tier": "ci"}, where=w),
        "b": RoleDoc(name="b", rules=r("pods"), labels={"tier": "prod", "team": "x"}, where=w),
        "c": RoleDoc(name="c", rules=r("nodes"), labels={"rbac.authorization.k8s.io/aggregate-to-view": "true"}, where=w),
        "in": RoleDoc(name="in", aggregation=sel(("tier", "In", ("ci", "qa"))), where=w),
        "notin": RoleDoc(name="notin", aggregation=sel(("tier", "NotIn", ("ci",)), ("tier", "Exists", ())), where=w),
        "none": RoleDoc(name="none", aggregation=sel(("team", "DoesNotExist", ()), ("tier", "Exists", ())), where=w),
    }.items()}
    got = {n: sorted(x.resources[0] for x in rules) for n, rules in aggregated_rules(roles).items()}
    assert got["in"] == ["secrets"] and got["notin"] == ["pods"] and got["none"] == ["secrets"]
    assert got["view"] == ["nodes"] and got["edit"] == ["nodes", "secrets"] and got["admin"] == ["nodes", "secrets"]


# --------------------------------------------------------------------------- GitHub OIDC claims


def test_custom_sub_ref_type_of_pull_requests_and_unknown_refs():
    """A ``sub`` customised with ``ref_type`` (GitHub "OpenID Connect reference", customizing the subject claims,
    https://docs.github.com/en/actions/reference/security/oidc): ``ref_type`` is ``branch`` or ``tag``
    (``github.ref_type``: "Valid values are branch or tag", GitHub "Contexts reference"), ``branch`` for a pull
    request's ``refs/pull/N/merge``.  graphkit wrote ``*`` for a pull request (a tag-only trust was ``possible``)
    and ``tag`` for a ref that may be a branch or a tag (``uses: ...@v1`` -> ``refs/*/v1``: certain for a
    tag-only trust)."""
    from graphkit.oidc import JobFacts, Run, claim_variants

    facts = JobFacts("acme/app", (Run("pull_request", "refs/pull/*/merge"),), workflow_path=".github/workflows/ci.yml",
                     template=("repo", "ref_type"))
    tag_only = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                           "Principal": {"Federated": PROVIDER},
                                           "Condition": {"StringEquals": {f"{HOST}:sub": "repo:acme/app:ref_type:tag"}}}})
    branches = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                           "Principal": {"Federated": PROVIDER},
                                           "Condition": {"StringEquals": {f"{HOST}:sub": "repo:acme/app:ref_type:branch"}}}})
    [[(ctx, known, sub)]] = claim_variants(facts)
    assert sub == "repo:acme/app:ref_type:branch"
    assert web_identity_trust(tag_only, A, ctx, known_keys=known).result is False
    assert web_identity_trust(branches, A, ctx, known_keys=known).result is True
    either = JobFacts("acme/app", (Run("ref:refs/*/v1", "refs/*/v1"),), template=("repo", "ref_type"))
    [[(ctx, known, sub)]] = claim_variants(either)
    assert sub == "repo:acme/app:ref_type:*"
    assert web_identity_trust(tag_only, A, ctx, known_keys=known).result is None


def test_not_resource_in_the_callers_policy_is_decided_for_each_role():
    """AWS "IAM JSON policy elements: NotResource"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html): an Allow with
    ``NotResource`` applies to every resource it does not list, a Deny with ``NotResource`` to every resource it does
    not list.  graphkit read an Allow with ``NotResource`` as ``*``, possibly, so every role trusting the account
    root was ``possible`` for the caller, the excluded one included; a Deny with ``NotResource`` made every role
    ``possible`` too."""
    root = [_assume({"AWS": f"arn:aws:iam::{A}:root"})]

    def reach(inline: list) -> dict[str, str | None]:
        caller = role("c", [_assume({"Service": "ec2.amazonaws.com"})], inline)
        g = graph_of({"RoleDetailList": [caller, role("admin", root), role("dev", root), role("ops", root)]})
        return {n: assumers(g, R(n)).get(R("c")) for n in ("admin", "dev", "ops")}

    assert reach([{"Effect": "Allow", "Action": "sts:AssumeRole", "NotResource": f"arn:aws:iam::{A}:role/admin"}]) == {
        "admin": None, "dev": "certain", "ops": "certain"}
    assert reach([{"Effect": "Allow", "Action": "*", "Resource": "*"},
                  {"Effect": "Deny", "Action": "sts:AssumeRole", "NotResource": f"arn:aws:iam::{A}:role/dev"}]) == {
        "admin": None, "dev": "certain", "ops": None}


def test_a_trust_pinned_only_by_a_claim_sts_does_not_read_is_no_open_trust():
    """configure-aws-credentials issue 306 (https://github.com/aws-actions/configure-aws-credentials/issues/306):
    a trust conditioned on ``token.actions.githubusercontent.com:repository_owner`` never matched ("IAM doesn't
    appear to think it exists"): AWS STS evaluates only the GitHub claims it lists (``repository_owner_id``, not
    ``repository_owner``; AWS IAM User Guide "Available keys for AWS OIDC federation",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif),
    and a key absent from the request makes ``StringEquals`` false.  No job assumes such a role, and graphkit's
    review called it ``no-sub`` ("any repository on github.com", critical)."""
    from graphkit.iam import oidc_trust_issues

    def issues(cond: dict) -> list[tuple[str, bool]]:
        st = parse_policy({"Version": "2012-10-17", "Statement": {
            "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": PROVIDER},
            "Condition": cond}})
        return [(i.code, i.broad) for i in oidc_trust_issues(st)]

    aud = {f"{HOST}:aud": "sts.amazonaws.com"}
    assert issues({"StringEquals": {**aud, f"{HOST}:repository_owner": "acme"}}) == []
    assert issues({"StringEquals": {**aud, f"{HOST}:event_name": "push"}}) == []
    # a claim STS reads, or an IfExists / negated condition on one it does not, leaves the trust open
    assert issues({"StringEquals": aud, "StringEqualsIfExists": {f"{HOST}:repository_owner": "acme"}}) == [("no-sub", True)]
    assert issues({"StringEquals": aud, "StringNotEquals": {f"{HOST}:repository_owner": "evil"}}) == [("no-sub", True)]
    assert issues({"StringEquals": aud}) == [("no-sub", True)]
    assert issues({"StringEquals": {**aud, f"{HOST}:repository_owner_id": "123"}}) == []  # pins the owner
    wf = ("on: {push: {branches: [main]}}\npermissions: {id-token: write}\njobs:\n  d:\n    runs-on: ubuntu-latest\n"
          f"    steps:\n      - uses: aws-actions/configure-aws-credentials@v4\n        with: {{role-to-assume: 'arn:aws:iam::{A}:role/deploy', aws-region: us-east-1}}\n")
    trust = [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": PROVIDER},
              "Condition": {"StringEquals": {**aud, f"{HOST}:repository_owner": "acme"}}}]
    g = graph_of({"RoleDetailList": [role("deploy", trust)]}, ("acme/app", wf))
    assert assumers(g, R("deploy")) == {}


def test_trusted_subs_in_a_customised_template_are_classified_by_what_they_pin():
    """GitHub "OpenID Connect reference", customizing the subject claims
    (https://docs.github.com/en/actions/reference/security/oidc): with ``include_claim_keys: ["repository_owner"]``
    every repository of the owner presents ``sub`` ``repository_owner:octo-org`` (the docs' example for "all
    repositories" of an organization), so a trust of that value is org-wide even under ``StringEquals``.  graphkit
    reviewed only ``repo:`` values: ``StringEquals repository_owner:octo-org`` raised nothing and ``StringLike
    repository_owner_id:123:*`` was called ``wildcard-owner`` (critical: "other owners' repositories match") though
    the owner is pinned."""
    from graphkit.iam import oidc_trust_issues

    def issues(op: str, sub: str) -> list[tuple[str, str]]:
        cond: dict = {"StringEquals": {f"{HOST}:aud": "sts.amazonaws.com"}}
        cond.setdefault(op, {})[f"{HOST}:sub"] = sub
        st = parse_policy({"Version": "2012-10-17", "Statement": {
            "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": PROVIDER},
            "Condition": cond}})
        return [(i.code, i.value) for i in oidc_trust_issues(st)]

    assert issues("StringEquals", "repository_owner:octo-org") == [("org-wide", "repository_owner:octo-org")]
    assert issues("StringLike", "repository_owner_id:123:*") == [("org-wide", "repository_owner_id:123:*")]
    assert issues("StringLike", "repository_visibility:private:*") == [("wildcard-owner", "repository_visibility:private:*")]
    assert issues("StringLike", "repository_id:42:*") == [("any-context", "repository_id:42:*")]
    assert issues("StringEquals", "repository_id:42:environment:prod") == []
    assert issues("StringEquals", "repo:octo-org/octo-repo:environment:prod") == []


ESCALATION = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: %(sa)s, namespace: tools}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: %(kind)s
metadata: {name: %(sa)s-role%(ns)s}
rules: %(rules)s
---
apiVersion: rbac.authorization.k8s.io/v1
kind: %(kind)sBinding
metadata: {name: %(sa)s-binding%(ns)s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: %(kind)s, name: %(sa)s-role}
subjects: [{kind: ServiceAccount, name: %(sa)s, namespace: tools}]
"""


def _escalation(sa: str, rules: str, namespace: str | None = None) -> str:
    ns = f", namespace: {namespace}" if namespace else ""
    return ESCALATION % {"sa": sa, "rules": rules, "kind": "Role" if namespace else "ClusterRole", "ns": ns}


def test_impersonate_bind_escalate_and_workload_creation_are_escalation_paths(tmp_path):
    """Kubernetes "Role Based Access Control Good Practices", "Privilege escalation risks"
    (https://kubernetes.io/docs/concepts/security/rbac-good-practices/#privilege-escalation-risks): ``impersonate``
    ("gain the rights of other users"), ``bind`` / ``escalate`` (create bindings or roles with rights one does not
    have) and workload creation ("can mount any Secret in the namespace") -- the "risky roles" KubiScan and
    rbac-police report.  graphkit read only ``*`` on ``*`` and Secret reads: none of these service accounts
    reached anything."""
    manifests = [
        _escalation("impersonator", '[{apiGroups: [""], resources: [users, groups, serviceaccounts], verbs: [impersonate]}]'),
        _escalation("binder", '[{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind]},'
                              ' {apiGroups: [rbac.authorization.k8s.io], resources: [clusterrolebindings], verbs: [create]}]'),
        _escalation("escalator", '[{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [escalate, update]}]'),
        _escalation("deployer2", '[{apiGroups: [apps], resources: [deployments], verbs: [create, get]}]', "arc-runners"),
        # near misses: a group alone cannot be impersonated; bind limited by resourceNames; read-only on pods
        _escalation("groups-only", '[{apiGroups: [""], resources: [groups], verbs: [impersonate]}]'),
        _escalation("bind-view", '[{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind],'
                                 ' resourceNames: [view]}, {apiGroups: [rbac.authorization.k8s.io],'
                                 ' resources: [clusterrolebindings], verbs: [create]}]'),
        _escalation("pod-reader", '[{apiGroups: [""], resources: [pods], verbs: [get, list, watch]}]', "arc-runners"),
    ]
    g = _cluster(tmp_path, (K8S_FIX / "arc-runners.yaml").read_text(), *manifests)
    cid = ids.target("cluster", CLUSTER)

    def admin(sa: str) -> tuple[str, str] | None:
        src = ids.k8s_service_account(CLUSTER, "tools", sa)
        return next(((e.confidence.value, e.props.get("escalation")) for e in g.edges(EdgeKind.ADMINISTERS)
                     if e.source == src and e.target == cid), None)

    def reads(sa: str) -> dict[str, str]:
        src = ids.k8s_service_account(CLUSTER, "tools", sa)
        return {e.target: e.confidence.value for e in g.edges(EdgeKind.READS_SECRET) if e.source == src}

    assert admin("impersonator") == ("certain", "impersonate")
    assert admin("binder") == ("certain", "bind")
    assert admin("escalator") == ("certain", "escalate")
    assert reads("deployer2") == {ids.k8s_secret(CLUSTER, "arc-runners", "prod-db"): "possible",
                                  ids.k8s_secret(CLUSTER, "arc-runners", "arc-github-app"): "possible"}
    for sa in ("groups-only", "bind-view", "pod-reader"):
        assert admin(sa) is None and reads(sa) == {}, sa


# --------------------------------------------------------------------------- GitLab

GITLAB_DEPLOY = """deploy:
  script: ./deploy.sh
  id_tokens:
    AWS_TOKEN:
      aud: https://gitlab.com
  rules:
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
"""
GITLAB_INVENTORY = """schema: graphkit.runner-inventory/v1
gitlab_projects:
  - instance: gitlab.com
    full_path: acme/app
    default_branch: main
    protected_branches: [main]
    protected_tags: []
    variables:
      - {key: AWS_DEPLOY_KEY, protected: true, masked: true}
      - {key: NPM_TOKEN, protected: false}
    variables_complete: true
"""


def test_gitlab_default_branch_rule_gets_protected_variables_and_the_main_branch_sub(tmp_path):
    """``if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH`` (GitLab "Specify when jobs run with rules",
    https://docs.gitlab.com/ci/jobs/job_rules/) runs on the default branch, protected by default: its jobs receive
    protected variables (https://docs.gitlab.com/ci/variables/#protect-a-cicd-variable) and their ID token's ``sub``
    is ``project_path:acme/app:ref_type:branch:ref:main``, what GitLab's AWS guide pins
    (https://docs.gitlab.com/ci/cloud_services/aws/).  graphkit compared the text ``$CI_DEFAULT_BRANCH`` with the
    protected branches (so: unprotected, no protected variable) and put it in the ``sub`` (no trust matched)."""
    (tmp_path / "projects" / "acme__app").mkdir(parents=True)
    (tmp_path / "projects" / "acme__app" / ".gitlab-ci.yml").write_text(GITLAB_DEPLOY)
    (tmp_path / "inventory.yaml").write_text(GITLAB_INVENTORY)
    trust = [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
              "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/gitlab.com"},
              "Condition": {"StringEquals": {"gitlab.com:aud": "https://gitlab.com",
                                             "gitlab.com:sub": "project_path:acme/app:ref_type:branch:ref:main"}}}]
    (tmp_path / "iam.json").write_text(json.dumps({"RoleDetailList": [role("deploy", trust)]}))
    inputs = {"gitlab-ci": [tmp_path / "projects"], "runners": [tmp_path / "inventory.yaml"],
              "aws-iam": [tmp_path / "iam.json"]}
    res = build_graph(inputs)
    assert res.problems == []
    g = res.graph
    job = "job:gitlab:acme/app:.gitlab-ci.yml#deploy"
    secrets = {e.target.rsplit(":", 2)[-2]: e.confidence.value for e in g.edges(EdgeKind.READS_SECRET) if e.source == job}
    assert secrets == {"AWS_DEPLOY_KEY": "certain", "NPM_TOKEN": "certain"}
    assert list(assumers(g, R("deploy")).values()) == ["certain"]
    # without the default branch in the inventory: both possible, never absent
    (tmp_path / "inventory.yaml").write_text(GITLAB_INVENTORY.replace("    default_branch: main\n", ""))
    g = build_graph(inputs).graph
    secrets = {e.target.rsplit(":", 2)[-2]: e.confidence.value for e in g.edges(EdgeKind.READS_SECRET) if e.source == job}
    assert secrets == {"AWS_DEPLOY_KEY": "possible", "NPM_TOKEN": "certain"}
    assert list(assumers(g, R("deploy")).values()) == ["possible"]


def test_gitlab_id_token_trusts_are_reviewed_like_github_ones():
    """GitLab's AWS guide (https://docs.gitlab.com/ci/cloud_services/aws/) pins ``gitlab.com:sub`` to
    ``project_path:GROUP/PROJECT:ref_type:branch:ref:main``; a trust without it lets any project on gitlab.com in,
    ``project_path:GROUP/*`` every project of the group (the sub format: GitLab "Token payload",
    https://docs.gitlab.com/ci/secrets/id_token_authentication/#token-payload).  graphkit reviewed GitHub trusts
    only: no finding for any of these."""
    from graphkit.findings import run_rules

    def trust(cond: dict) -> dict:
        return {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/gitlab.com"}, "Condition": cond}

    aud = {"gitlab.com:aud": "https://gitlab.com"}
    export = {"RoleDetailList": [
        role("no-sub", [trust({"StringEquals": aud})]),
        role("group", [trust({"StringEquals": aud, "StringLike": {"gitlab.com:sub": "project_path:acme/*"}})]),
        role("branches", [trust({"StringEquals": aud, "StringLike": {
            "gitlab.com:sub": "project_path:acme/app:ref_type:branch:ref:*"}})]),
        role("main", [trust({"StringEquals": {**aud, "gitlab.com:sub": "project_path:acme/app:ref_type:branch:ref:main"}})]),
        # a claim STS does not evaluate for GitLab tokens: absent, so no token satisfies it
        role("ns-only", [trust({"StringEquals": {**aud, "gitlab.com:namespace_path": "acme"}})])]}
    g = graph_of(export)
    got = sorted((f.rule, f.subject.rsplit("/", 1)[-1], f.severity.value, f.properties.get("code"))
                 for f in run_rules(g) if f.rule.startswith("oidc-trust"))
    assert got == [("oidc-trust-broad-sub", "branches", "medium", "gitlab:any-branch"),
                   ("oidc-trust-broad-sub", "group", "high", "gitlab:org-wide"),
                   ("oidc-trust-without-sub", "no-sub", "critical", "gitlab:no-sub")]


def test_an_assumed_role_session_principal_names_sessions_of_that_role():
    """A role session principal ``arn:aws:sts::ACCOUNT:assumed-role/ROLE-NAME/SESSION-NAME`` (AWS "AWS JSON policy
    elements: Principal", role session principals,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-sessions;
    cfn-lint rejected it: https://github.com/aws-cloudformation/cfn-lint/issues/3620; iam-lens maps it to the role by
    name, path left out: https://github.com/act-security-labs/iam-lens/pull/182) lets in sessions of that role
    with that name, which the caller of ``sts:AssumeRole`` chooses: ``possible`` for the role.  graphkit compared it
    with the role's ARN: no edge."""
    ci = dict(role("ci-runner", [_assume({"Service": "ec2.amazonaws.com"})],
                   [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]),
              Arn=f"arn:aws:iam::{A}:role/build/ci-runner", Path="/build/")
    export = {"RoleDetailList": [ci, role("other", [_assume({"Service": "ec2.amazonaws.com"})]),
                                 role("target", [_assume({"AWS": f"arn:aws:sts::{A}:assumed-role/ci-runner/release"})])]}
    g = graph_of(export)
    runner = ids.cloud_role("aws", f"arn:aws:iam::{A}:role/build/ci-runner")
    assert assumers(g, R("target")) == {runner: "possible"}
    st = parse_policy({"Statement": [_assume({"AWS": f"arn:aws:sts::{A}:assumed-role/ci-runner/release"})]})
    assert principal_trust(st, f"arn:aws:iam::{A}:user/ci-runner", A, A)[0] is False  # a user of that name: no


def test_github_enterprise_server_trusts_are_reviewed():
    """GitHub Enterprise Server issues tokens from ``https://HOSTNAME/_services/token``: the AWS provider is
    ``oidc-provider/HOSTNAME/_services/token`` and the keys ``HOSTNAME/_services/token:sub`` (the shape of
    https://gist.github.com/jonesy1234/3e34f9f7d2904a3c84233ebe98564db8, "GitHub Enterprise AWS OIDC":
    ``repo:${FullRepoName}:*``).  graphkit knew only github.com and ghe.com issuers: such trusts were not
    reviewed (no finding even without a sub condition)."""
    from graphkit.iam import oidc_trust_issues

    host = "mygithub.com/_services/token"

    def issues(cond: dict) -> list[tuple[str, str]]:
        st = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                         "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/{host}"},
                                         "Condition": cond}})
        return [(i.code, i.value) for i in oidc_trust_issues(st)]

    aud = {f"{host}:aud": "https://mygithub.com/mygithuborg"}
    assert issues({"StringLike": {**aud, f"{host}:sub": "repo:mygithuborg/sjramblings:*"}}) == [
        ("any-context", "repo:mygithuborg/sjramblings:*"), ("wrong-aud", "https://mygithub.com/mygithuborg")]
    assert issues({"StringEquals": aud})[0] == ("no-sub", "")
    # STS reads only sub and aud of a GHES token: a repository condition alone pins nothing, and holds for no token
    assert issues({"StringEquals": {**aud, f"{host}:repository": "mygithuborg/sjramblings"}}) == []


def test_a_permissions_boundary_limits_a_trust_that_names_the_callers_role_arn():
    """AWS "Policy evaluation logic": within an account "an implicit deny in a permissions boundary does limit the
    permissions granted to the ARN of the underlying IAM role" by a resource-based policy (demonstrated in
    https://github.com/benkehoe/permissions-boundary-test: a resource policy cannot unilaterally grant access to an
    IAM role, only to a role session).  A trust naming the caller role needs no identity Allow, but its boundary
    must allow ``sts:AssumeRole``.  graphkit ignored the boundary there: certain edge."""
    boundary_arn = f"arn:aws:iam::{A}:policy/s3-only"
    caller = dict(role("ci", [_assume({"Service": "ec2.amazonaws.com"})]),
                  PermissionsBoundary={"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": boundary_arn})
    named = role("named", [_assume({"AWS": f"arn:aws:iam::{A}:role/ci"})])
    session = role("session", [_assume({"AWS": f"arn:aws:sts::{A}:assumed-role/ci/deploy"})])

    def export(boundary_actions: str) -> dict:
        pol = {"PolicyName": "s3-only", "Arn": boundary_arn, "DefaultVersionId": "v1", "AttachmentCount": 1,
               "PolicyVersionList": [{"VersionId": "v1", "IsDefaultVersion": True, "Document": {
                   "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": boundary_actions, "Resource": "*"}]}}]}
        return {"RoleDetailList": [caller, named, session], "Policies": [pol]}

    g = graph_of(export("s3:*"))
    assert assumers(g, R("named")) == {}
    assert assumers(g, R("session")) == {R("ci"): "possible"}  # a session is not limited by the boundary
    g = graph_of(export("sts:AssumeRole"))
    assert assumers(g, R("named")) == {R("ci"): "certain"}


def test_a_trust_of_any_environment_is_as_broad_as_any_branch():
    """``repo:ORG/REPO:environment:*``: a job that names an environment that does not exist creates it, with no
    protection rule (GitHub "Managing environments for deployment",
    https://docs.github.com/en/actions/managing-workflow-runs-and-deployments/managing-deployments/managing-environments-for-deployment),
    so whoever can push a workflow presents ``environment:ANYTHING``.  graphkit raised nothing for it."""
    from graphkit.iam import oidc_trust_issues

    def issues(sub: str) -> list[tuple[str, bool]]:
        st = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                         "Principal": {"Federated": PROVIDER},
                                         "Condition": {"StringEquals": {f"{HOST}:aud": "sts.amazonaws.com"},
                                                       "StringLike": {f"{HOST}:sub": sub}}}})
        return [(i.code, i.broad) for i in oidc_trust_issues(st)]

    assert issues("repo:acme/app:environment:*") == [("any-environment", True)]
    assert issues("repo:acme/app:environment:prod") == []
