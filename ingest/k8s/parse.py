"""Kubernetes manifests, ARC Helm values, kubeconfigs and cluster descriptors -> models (pure: no I/O).

A file is a YAML (or JSON) stream of one or more documents (``---``); a ``kind: List`` document's ``items`` are
objects too (``kubectl get -o yaml``).  Each document is read on its own: a document that is not YAML, or an
object with a field of the wrong type, is one problem naming the file, the document index, the YAML path and the
line, and the other documents are kept (a host namespace or security context field of the wrong type is a
problem too, but its object is kept and the field unknown: :mod:`ingest.k8s.host_access`).  Objects of kinds
graphkit does not model (StorageClass, Service...) are recognised and skipped; a file in which no document is a Kubernetes object, an ARC values file, a kubeconfig or a
cluster descriptor is :class:`~graphkit.ingestor.NotRecognised` (ignored in a folder).

What is read (Kubernetes API reference, https://kubernetes.io/docs/reference/kubernetes-api/; ARC, see
:mod:`ingest.k8s.pods`):

- ``actions.github.com`` ``AutoscalingRunnerSet``; gha-runner-scale-set values files (a mapping with
  ``githubConfigUrl`` and no ``kind``); ``actions.summerwind.dev`` ``RunnerDeployment``, ``RunnerSet``,
  ``Runner`` (``HorizontalRunnerAutoscaler`` is recognised: it scales, it grants nothing);
- ``ServiceAccount`` with the workload identity annotations ``eks.amazonaws.com/role-arn`` (EKS IRSA,
  https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html),
  ``iam.gke.io/gcp-service-account`` (GKE), ``azure.workload.identity/client-id`` (Azure);
- ``Secret``: name, type and key names of ``data`` / ``stringData``, never a value;
- ``Role``, ``ClusterRole``, ``RoleBinding``, ``ClusterRoleBinding`` (https://kubernetes.io/docs/reference/access-authn-authz/rbac/);
- the EKS ``aws-auth`` ConfigMap in ``kube-system``: ``mapRoles`` / ``mapUsers`` (YAML strings) with
  ``rolearn``/``userarn``, ``username``, ``groups`` (https://docs.aws.amazon.com/eks/latest/userguide/auth-configmap.html);
  EKS access entries as ``aws eks list-associated-access-policies`` prints them (one principal per document);
- ``Deployment``, ``StatefulSet``, ``DaemonSet``, ``Job``, ``Pod``: their pod template (the ARC controller);
- kubeconfigs (``kind: Config``; :mod:`ingest._kubeconfig`) and cluster descriptors (:class:`ClusterInfo`).

Namespaces: an object without ``metadata.namespace`` is in ``default`` (what ``kubectl apply`` without ``-n``
uses in a context without a namespace).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from graphkit import limits
from graphkit.errors import InputError
from graphkit.ingestor import NotRecognised
from ingest._kubeconfig import kubeconfig_clusters, kubeconfig_users
from ingest._yaml import load_yaml, type_name
from ingest.k8s.models import (AccessPolicy, AwsAuthEntry, BindingDoc, ClusterInfo, K8sObject, KubeconfigDoc, KubeUser,
                               LabelSelector, RoleDoc, Rule, SecretDoc, ServiceAccountDoc, Subject, Where, WorkloadDoc)
from ingest.k8s.pods import chart_rbac, pod_template, scale_set, summerwind_pool, values_file
from ingest.k8s.read import Bad, Reader, split_documents

__all__ = ["CLUSTER_SCHEMA", "ParsedK8s", "parse"]

#: the schema id of graphkit's cluster descriptor (name, API server URL, production, OIDC issuer)
CLUSTER_SCHEMA = "graphkit.k8s-cluster/v1"
_IRSA = "eks.amazonaws.com/role-arn"
_GKE = "iam.gke.io/gcp-service-account"
_AZURE = "azure.workload.identity/client-id"
_WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "Pod"}
#: what the workload identity annotations and ``aws-auth`` entries may hold; anything else (a URL with a
#: password, free text) is a problem naming its YAML path, never a node id.  IAM ARNs
#: (``arn:PARTITION:iam::ACCOUNT:role/PATH/NAME``): https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns,
#: IRSA: https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+")
#: ``aws-auth`` ``rolearn``/``userarn`` and EKS access entry principals (roles and users)
_PRINCIPAL_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:(role|user)/[\w+=,.@/-]+")
#: GKE: a Google service account email, NAME@PROJECT.iam.gserviceaccount.com
#: (https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity)
_GSA = re.compile(r"[a-z0-9][a-z0-9-]*@[a-z0-9.:-]+\.gserviceaccount\.com")
#: Azure: the client id (a GUID) of a managed identity or application
#: (https://azure.github.io/azure-workload-identity/docs/topics/service-account-labels-and-annotations.html)
_GUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


@dataclass
class ParsedK8s:
    """One file: its objects (in document order) and the problems of the documents or objects left out."""

    file: str
    #: the input path (``--k8s``) the file was found under: one cluster per input path
    root: str = ""
    objects: list[K8sObject] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    recognised: bool = False


@dataclass(frozen=True)
class _Doc:
    """One object being read: its reader (lines, path prefix), its ``Where`` and its data."""

    r: Reader
    where: Where
    data: dict[str, Any]
    #: problems of fields left out while the object is kept (e.g. an annotation that is not an ARN)
    notes: list[Bad] = field(default_factory=list)

    def checked(self, value: Any, path: str, pattern: re.Pattern[str], what: str) -> str | None:
        """The text at ``path`` when it matches ``pattern``; else None and a note (never quoting the value)."""
        text = self.r.text(value, path)
        if text is not None and not pattern.fullmatch(text):
            self.notes.append(Bad(self.r.full(path), f"not {what}: ignored"))  # the document's path
            return None
        return text

    @property
    def meta(self) -> dict[str, Any]:
        return self.r.mapping(self.data.get("metadata"), "metadata")

    @property
    def name(self) -> str:
        raw = self.meta.get("name")
        if isinstance(raw, str) and "${" in raw:  # a template's placeholder (envsubst): kept as written
            return raw.strip()
        name = self.r.text(raw, "metadata.name")
        if name is None:
            raise Bad("metadata.name", "missing name")
        return name

    @property
    def namespace(self) -> str:
        return self.r.namespace(self.meta.get("namespace"), "metadata.namespace") or "default"

    @property
    def object_name(self) -> str:
        """:attr:`name`, checked as a DNS-1123 subdomain (objects whose names become node ids)."""
        name = self.name
        return name if "${" in name else self.r.name(name, "metadata.name") or name


def _service_account(d: _Doc) -> list[K8sObject]:
    ann = d.r.mapping(d.meta.get("annotations"), "metadata.annotations")
    at = "metadata.annotations."
    automount = d.data.get("automountServiceAccountToken")  # read as a PodSpec's: a Boolean, else not set
    return [ServiceAccountDoc(name=d.object_name, namespace=d.namespace,
                              automount_token=automount if isinstance(automount, bool) else None,
                              aws_role_arn=d.checked(ann.get(_IRSA), at + _IRSA, _ROLE_ARN, "an IAM role ARN"),
                              gcp_service_account=d.checked(ann.get(_GKE), at + _GKE, _GSA,
                                                            "a Google service account email"),
                              azure_client_id=d.checked(ann.get(_AZURE), at + _AZURE, _GUID, "a client id (GUID)"),
                              where=d.where)]


def _secret(d: _Doc) -> list[K8sObject]:
    keys = [*d.r.mapping(d.data.get("data"), "data"), *d.r.mapping(d.data.get("stringData"), "stringData")]
    return [SecretDoc(name=d.object_name, namespace=d.namespace, secret_type=d.r.text(d.data.get("type"), "type"),
                      keys=sorted({str(k) for k in keys}), where=d.where)]


def _names(r: Reader, value: Any, path: str) -> list[str]:
    return [x for i, v in enumerate(r.seq(value, path)) if (x := r.text(v, f"{path}[{i}]"))]


def _role(d: _Doc, cluster_scoped: bool) -> list[K8sObject]:
    rules = []
    for i, raw in enumerate(d.r.seq(d.data.get("rules"), "rules")):
        at = f"rules[{i}]"
        rule = d.r.mapping(raw, at)
        rules.append(Rule(api_groups=[str(g) for g in d.r.seq(rule.get("apiGroups"), f"{at}.apiGroups")
                                      if isinstance(g, str)],
                          resources=_names(d.r, rule.get("resources"), f"{at}.resources"),
                          verbs=_names(d.r, rule.get("verbs"), f"{at}.verbs"),
                          resource_names=_names(d.r, rule.get("resourceNames"), f"{at}.resourceNames"),
                          non_resource_urls=_names(d.r, rule.get("nonResourceURLs"), f"{at}.nonResourceURLs")))
    name = d.r.segment(d.name, "metadata.name") or d.name
    labels = {str(k): str(v) for k, v in d.r.mapping(d.meta.get("labels"), "metadata.labels").items()}
    aggregation = _aggregation(d) if cluster_scoped and d.data.get("aggregationRule") is not None else None
    return [RoleDoc(name=name, namespace=None if cluster_scoped else d.namespace, rules=rules, labels=labels,
                    aggregation=aggregation, where=d.where)]


_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")


def _aggregation(d: _Doc) -> list[LabelSelector]:
    """``aggregationRule.clusterRoleSelectors`` of a ClusterRole (Kubernetes "Aggregated ClusterRoles",
    https://kubernetes.io/docs/reference/access-authn-authz/rbac/#aggregated-clusterroles)."""
    rule = d.r.mapping(d.data.get("aggregationRule"), "aggregationRule")
    out = []
    for i, raw in enumerate(d.r.seq(rule.get("clusterRoleSelectors"), "aggregationRule.clusterRoleSelectors")):
        at = f"aggregationRule.clusterRoleSelectors[{i}]"
        sel = d.r.mapping(raw, at)
        exprs = []
        for j, e in enumerate(d.r.seq(sel.get("matchExpressions"), f"{at}.matchExpressions")):
            e = d.r.mapping(e, f"{at}.matchExpressions[{j}]")
            key, op = d.r.text(e.get("key"), f"{at}.matchExpressions[{j}].key"), e.get("operator")
            if not key or op not in _SELECTOR_OPS:
                raise Bad(f"{at}.matchExpressions[{j}]", f"expected a key and an operator among {', '.join(_SELECTOR_OPS)}")
            exprs.append((key, op, tuple(_names(d.r, e.get("values"), f"{at}.matchExpressions[{j}].values"))))
        labels = d.r.mapping(sel.get("matchLabels"), f"{at}.matchLabels")
        out.append(LabelSelector(match_labels={str(k): str(v) for k, v in labels.items()}, match_expressions=exprs))
    return out


def _binding(d: _Doc, cluster_scoped: bool) -> list[K8sObject]:
    ref = d.r.mapping(d.data.get("roleRef"), "roleRef")
    kind = d.r.text(ref.get("kind"), "roleRef.kind")
    role = d.r.segment(ref.get("name"), "roleRef.name")
    if kind not in ("Role", "ClusterRole") or role is None:
        raise Bad("roleRef", "expected roleRef.kind Role or ClusterRole and a roleRef.name")
    ns = None if cluster_scoped else d.namespace
    subjects = []
    for i, raw in enumerate(d.r.seq(d.data.get("subjects"), "subjects")):
        s = d.r.mapping(raw, f"subjects[{i}]")
        skind, sname = d.r.text(s.get("kind"), f"subjects[{i}].kind"), d.r.text(s.get("name"), f"subjects[{i}].name")
        if skind == "ServiceAccount":
            sname = d.r.name(sname, f"subjects[{i}].name")
        if skind and sname:
            sns = d.r.namespace(s.get("namespace"), f"subjects[{i}].namespace")
            subjects.append(Subject(kind=skind, name=sname, namespace=sns or (ns if skind == "ServiceAccount" else None)))
    name = d.r.segment(d.name, "metadata.name") or d.name
    return [BindingDoc(name=name, namespace=ns, role_kind=kind, role_name=role, subjects=subjects,  # type: ignore[arg-type]
                       where=d.where)]


def _aws_auth(d: _Doc) -> list[K8sObject]:
    if d.name != "aws-auth" or d.r.text(d.meta.get("namespace"), "metadata.namespace") not in (None, "kube-system"):
        return []
    data = d.r.mapping(d.data.get("data"), "data")
    out: list[K8sObject] = []
    for section, key in (("mapRoles", "rolearn"), ("mapUsers", "userarn")):
        text = d.r.text(data.get(section), f"data.{section}") if data.get(section) is not None else None
        if not text:
            continue
        try:
            entries, _ = load_yaml(text, file=d.where.file)
        except InputError as exc:
            raise Bad(f"data.{section}", f"not YAML ({exc.reason})") from None
        for i, raw in enumerate(d.r.seq(entries, f"data.{section}")):
            e = d.r.mapping(raw, f"data.{section}[{i}]")
            arn = d.checked(e.get(key), f"data.{section}[{i}].{key}", _PRINCIPAL_ARN, "an IAM role or user ARN")
            if arn:
                out.append(AwsAuthEntry(arn=arn, username=d.r.text(e.get("username"), f"data.{section}[{i}].username"),
                                        groups=_names(d.r, e.get("groups"), f"data.{section}[{i}].groups"),
                                        where=d.where.model_copy(update={"path": d.r.full(f"data.{section}[{i}]"),
                                                                         "line": d.r.line(f"data.{section}")})))
    return out


def _access_policies(d: _Doc) -> list[K8sObject]:
    """``aws eks list-associated-access-policies`` output
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_ListAssociatedAccessPolicies.html): the principal,
    the cluster, and each policy's ``accessScope`` (``cluster``, or ``namespace`` with ``namespaces``)."""
    policies = []
    for i, raw in enumerate(d.r.seq(d.data.get("associatedAccessPolicies"), "associatedAccessPolicies")):
        at = f"associatedAccessPolicies[{i}]"
        p = d.r.mapping(raw, at)
        arn = d.r.text(p.get("policyArn"), f"{at}.policyArn")
        scope = d.r.mapping(p.get("accessScope"), f"{at}.accessScope")
        if arn is None:
            continue
        namespaced = d.r.text(scope.get("type"), f"{at}.accessScope.type") == "namespace"
        policies.append(AccessPolicy(arn=arn, namespaces=[n for j, v in enumerate(d.r.seq(scope.get("namespaces"),
                                                                                           f"{at}.accessScope.namespaces"))
                                                          if (n := d.r.namespace(v, f"{at}.accessScope.namespaces[{j}]"))]
                                     if namespaced else None))
    principal = d.checked(d.data.get("principalArn"), "principalArn", _PRINCIPAL_ARN, "an IAM role or user ARN")
    if principal is None:
        raise Bad("principalArn", "missing principalArn")
    return [AwsAuthEntry(arn=principal, cluster=d.r.text(d.data.get("clusterName"), "clusterName"), policies=policies,
                         where=d.where)]


def _workload(d: _Doc, kind: str) -> list[K8sObject]:
    spec = d.r.mapping(d.data.get("spec"), "spec")
    if kind == "Pod":
        pod = pod_template(d.r, spec, "spec")
    else:
        tmpl = d.r.mapping(spec.get("template"), "spec.template")
        pod = pod_template(d.r, tmpl.get("spec"), "spec.template.spec")
    return [WorkloadDoc(kind=kind, name=d.name, namespace=d.namespace, pod=pod, where=d.where)]


def _kubeconfig(d: _Doc) -> list[K8sObject]:
    ctxs = {}
    for i, raw in enumerate(d.r.seq(d.data.get("contexts"), "contexts")):
        c = d.r.mapping(raw, f"contexts[{i}]")
        inner = d.r.mapping(c.get("context"), f"contexts[{i}].context")
        name = d.r.text(c.get("name"), f"contexts[{i}].name")
        cl, us = d.r.text(inner.get("cluster"), f"contexts[{i}].context.cluster"), d.r.text(inner.get("user"), "user")
        if name and cl and us:
            ctxs[name] = (cl, us)
    users = [KubeUser(name=n, credential=u.credential, role_arn=u.role_arn, eks_cluster=u.eks_cluster)
             for n, u in kubeconfig_users(d.data).items()]
    return [KubeconfigDoc(clusters=kubeconfig_clusters(d.data), users=users, contexts=ctxs, where=d.where)]


def _descriptor(d: _Doc) -> list[K8sObject]:
    if d.data.get("schema") == CLUSTER_SCHEMA:
        prod = d.data.get("production")
        name = d.r.text(d.data.get("name"), "name")
        if name is None:
            raise Bad("name", "a cluster descriptor needs a name")
        return [ClusterInfo(name=name, server=d.r.text(d.data.get("server"), "server"),
                            production=prod if isinstance(prod, bool) else None,
                            oidc_issuer=d.r.text(d.data.get("oidc_issuer"), "oidc_issuer"), where=d.where)]
    c = d.r.mapping(d.data.get("cluster"), "cluster")  # aws eks describe-cluster
    oidc = d.r.mapping(d.r.mapping(c.get("identity"), "cluster.identity").get("oidc"), "cluster.identity.oidc")
    name = d.r.text(c.get("name"), "cluster.name")
    if name is None:
        raise Bad("cluster.name", "missing cluster name")
    return [ClusterInfo(name=name, server=d.r.text(c.get("endpoint"), "cluster.endpoint"),
                        oidc_issuer=d.r.text(oidc.get("issuer"), "cluster.identity.oidc.issuer"), where=d.where)]


_RBAC = "rbac.authorization.k8s.io"
_HANDLERS: dict[tuple[str, str], Callable[[_Doc], list[K8sObject]]] = {
    ("", "ServiceAccount"): _service_account,
    ("", "Secret"): _secret,
    ("", "ConfigMap"): _aws_auth,
    ("", "Config"): _kubeconfig,
    (_RBAC, "Role"): lambda d: _role(d, False),
    (_RBAC, "ClusterRole"): lambda d: _role(d, True),
    (_RBAC, "RoleBinding"): lambda d: _binding(d, False),
    (_RBAC, "ClusterRoleBinding"): lambda d: _binding(d, True),
    ("actions.github.com", "AutoscalingRunnerSet"): lambda d: [scale_set(d.r, d.data, d.name, d.namespace, d.where)],
    ("actions.summerwind.dev", "HorizontalRunnerAutoscaler"): lambda d: [],
}
for _k in ("RunnerDeployment", "RunnerSet", "Runner"):
    _HANDLERS[("actions.summerwind.dev", _k)] = (lambda k: lambda d: [summerwind_pool(d.r, d.data, k, d.name,
                                                                                      d.namespace, d.where)])(_k)


def _objects(d: _Doc, release: str) -> list[K8sObject] | None:
    """The objects of one document (None: not a document this source reads)."""
    data = d.data
    if data.get("schema") == CLUSTER_SCHEMA or (isinstance(data.get("cluster"), dict) and "endpoint" in data["cluster"]):
        return _descriptor(d)
    if "principalArn" in data and "associatedAccessPolicies" in data:
        return _access_policies(d)
    if "githubConfigUrl" in data and "kind" not in data:
        pool = values_file(d.r, data, release, d.where)
        return [pool, *chart_rbac(d.r, data, pool)]
    kind, api = data.get("kind"), data.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return None
    group = api.rsplit("/", 1)[0] if "/" in api else ""
    if kind == "List":
        out: list[K8sObject] = []
        for i, item in enumerate(d.r.seq(data.get("items"), "items")):
            if isinstance(item, dict):
                sub = d.r.full(f"items[{i}]")
                where = d.where.model_copy(update={"path": sub, "line": d.r.line(f"items[{i}]")})
                out += _objects(_Doc(Reader(d.r.lines, sub, d.notes), where, item, d.notes), release) or []
            else:  # a List's items are objects (kubectl get -o yaml): anything else is named, never dropped
                d.notes.append(Bad(d.r.full(f"items[{i}]"), f"expected a mapping (a Kubernetes object), found "
                                   f"{_a(type_name(item))}: item left out"))
        return out
    if kind in _WORKLOADS and group in ("", "apps", "batch"):
        return _workload(d, kind)
    handler = _HANDLERS.get((group, kind))
    return handler(d) if handler is not None else []


def _shape(data: Any) -> Bad | None:
    """What makes a document no object of any kind (None: nothing): not a mapping (a sequence, a scalar), a
    ``kind`` that is not a string, or a ``kind`` without a string ``apiVersion``.  Kept by :func:`parse` only for
    a file it recognises (a folder may hold other YAML)."""
    if not isinstance(data, dict):
        return Bad("", f"expected a mapping (a Kubernetes object), found {_a(type_name(data))}")
    kind, api = data.get("kind"), data.get("apiVersion")
    if "kind" in data and not isinstance(kind, str):
        return Bad("kind", f"expected a string (the object's kind), found {_a(type_name(kind))}")
    if isinstance(kind, str) and not isinstance(api, str):
        return Bad("apiVersion", "missing" if api is None else f"expected a string (group/version), found "
                   f"{_a(type_name(api))}")
    return None


def _a(name: str) -> str:
    """``name`` with its indefinite article (``an int``, ``a sequence``)."""
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _doc_index(place: str) -> int:
    """The document index a problem's place starts with (``document 3, kind, line 9`` -> 3; else 0).

    >>> _doc_index("document 12, kind, line 40"), _doc_index("line 2")
    (12, 0)
    """
    head = place.split(",", 1)[0]
    return int(head[9:]) if head.startswith("document ") and head[9:].isdigit() else 0


def _release(file: str) -> str:
    """The Helm release a values file stands for: its file name, else its folder's for ``values.yaml``."""
    p = PurePath(file)
    return p.parent.name if p.stem == "values" and p.parent.name else p.stem


def _problem(file: str, where_doc: str, r: Reader, exc: Bad) -> InputError:
    """The problem of a field: file, document, YAML path and line, and the reason (never the value)."""
    line, path = r.line(exc.path), r.full(exc.path)
    place = f"{where_doc}{path}" + (f", line {line}" if line and path else f"line {line}" if line else "")
    return InputError(file, place.strip(", "), exc.reason)


def parse(text: str, file: str, root: str = "") -> ParsedK8s:
    """Read every document of ``text`` (see the module docstring).

    Raises
    ------
    NotRecognised
        when no document is one this source reads (and none failed to parse).
    """
    docs = split_documents(text)
    out = ParsedK8s(file=file, root=root or file)
    cap = limits.current().max_documents_per_file
    if len(docs) > cap:  # before parsing any document
        out.problems.append(InputError(file, "", limits.too_many("max_documents_per_file", cap,
                                                                 f"{len(docs)} YAML documents")))
        return out
    multi = len(docs) > 1
    shapes: list[InputError] = []  # documents of no object's shape: problems of a file otherwise recognised
    for i, offset, chunk in docs:  # i: the index in the YAML stream (empty documents counted)
        where_doc = f"document {i}, " if multi else ""
        try:
            data, lines = load_yaml(chunk, file=file, line_offset=offset)
        except InputError as exc:
            out.problems.append(InputError(file, f"{where_doc}{exc.place}".strip(", "), exc.reason))
            continue
        shape = _shape(data) if data is not None else None  # an empty document holds no object
        if shape is not None:  # the line of its first item or key, not of its "---"
            first = min((n for k, n in lines.items() if k), default=lines.get("", 0))
            shapes.append(_problem(file, where_doc, Reader({**lines, "": first}), shape))
        if not isinstance(data, dict):
            continue
        r = Reader(lines)
        first = min((n for k, n in lines.items() if k), default=lines[""])  # the document's first key, not its "---"
        d = _Doc(r, Where(file=file, doc=i if multi else None, path="", line=first), data, r.notes)
        try:
            objects = _objects(d, _release(file))
        except Bad as exc:
            out.problems.append(_problem(file, where_doc, r, exc))
            out.recognised = True
            continue
        finally:
            out.problems += [_problem(file, where_doc, r, note) for note in d.notes]
        if objects is not None:
            out.recognised = True
            out.objects += objects
    if out.recognised:
        out.problems = sorted(out.problems + shapes, key=lambda p: _doc_index(p.place))
    if not out.recognised and not out.problems:
        raise NotRecognised(file, "", "not a Kubernetes manifest, ARC values file, kubeconfig or cluster descriptor")
    return out
