"""What the ``k8s`` source reads from manifests, Helm values, kubeconfigs and cluster descriptors (never a secret
value: Secrets and ``githubConfigSecret`` values are kept as key names only).

Every object carries :class:`Where` (file, document index, YAML path and line), from which its evidence is made.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graphkit.model import Evidence

__all__ = ["Where", "PodTemplate", "RunnerPool", "ServiceAccountDoc", "SecretDoc", "Rule", "RoleDoc", "Subject",
           "BindingDoc", "AccessPolicy", "AwsAuthEntry", "WorkloadDoc", "ClusterInfo", "KubeUser", "KubeconfigDoc", "K8sObject"]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Where(_M):
    """Where an object was read: ``file``, ``doc`` (0-based index in a multi-document stream, None for a single
    document), the object's YAML path inside the document and its 1-based line."""

    file: str
    doc: int | None = None
    path: str = ""
    line: int | None = None

    def evidence(self, sub: str = "", line: int | None = None, detail: str | None = None) -> Evidence:
        """Evidence for ``sub`` (a path below the object, e.g. ``spec.template``)."""
        path = ".".join(p for p in (self.path, sub) if p)
        if self.doc is not None:
            path = f"[{self.doc}]" + (f".{path}" if path else "")
        return Evidence(file=self.file, yaml_path=path or None, line=line or self.line, detail=detail)


class PodTemplate(_M):
    """A pod template's facts (Kubernetes PodSpec,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec)."""

    service_account: str | None = None
    automount_token: bool | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    #: why a process in the pod controls its node (privileged container, Windows HostProcess, hostPID with
    #: SYS_PTRACE, a hostPath of a node path, a runtime socket; :mod:`ingest.k8s.host_access`), each naming its field
    escapes: list[str] = Field(default_factory=list)
    #: why it may (``possible``): a hostPath of another host folder or of a path not known, a host namespace, a
    #: capability beyond the baseline set, procMount Unmasked, a field of the wrong type
    weak_escapes: list[str] = Field(default_factory=list)
    #: Secrets the pod mounts or reads into its environment (names)
    secrets: list[str] = Field(default_factory=list)
    #: volumes that outlive the pod (persistentVolumeClaim claims, volumeClaimTemplates names)
    shared_volumes: list[str] = Field(default_factory=list)


class RunnerPool(_M):
    """An ARC runner pool: an ``AutoscalingRunnerSet`` (actions.github.com), a gha-runner-scale-set Helm values
    file, or a legacy ``RunnerDeployment`` / ``RunnerSet`` / ``Runner`` (actions.summerwind.dev).

    ``scope``: the GitHub owner (``acme``) or repository (``acme/app``) it registers to (from ``githubConfigUrl``
    or ``organization``/``repository``), None when unknown (an enterprise, a template placeholder).
    ``config_secret``: the Secret holding the GitHub App key or PAT; ``inline_secret_keys``: the key names of a
    values file's inline ``githubConfigSecret`` (the chart creates the Secret).
    """

    resource: Literal["AutoscalingRunnerSet", "RunnerDeployment", "RunnerSet", "Runner", "values"]
    name: str
    namespace: str
    scope: str | None = None
    enterprise: str | None = None
    runner_group: str | None = None
    labels: list[str] = Field(default_factory=list)
    ephemeral: bool | None = None
    container_mode: str | None = None
    config_secret: str | None = None
    inline_secret_keys: list[str] = Field(default_factory=list)
    pod: PodTemplate = Field(default_factory=PodTemplate)
    where: Where


class ServiceAccountDoc(_M):
    """A ServiceAccount with its workload identity annotations and ``automountServiceAccountToken`` (None: not
    set; a Pod that does not set its own takes this one, Kubernetes "Configure Service Accounts for Pods",
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting)."""

    name: str
    namespace: str
    automount_token: bool | None = None
    aws_role_arn: str | None = None
    gcp_service_account: str | None = None
    azure_client_id: str | None = None
    where: Where


class SecretDoc(_M):
    """A Secret: name, type and key names (``data`` and ``stringData``), never a value."""

    name: str
    namespace: str
    secret_type: str | None = None
    keys: list[str] = Field(default_factory=list)
    where: Where


class Rule(_M):
    """One PolicyRule of a Role or ClusterRole."""

    api_groups: list[str] = Field(default_factory=list)
    resources: list[str] = Field(default_factory=list)
    verbs: list[str] = Field(default_factory=list)
    resource_names: list[str] = Field(default_factory=list)
    non_resource_urls: list[str] = Field(default_factory=list)


class LabelSelector(_M):
    """A label selector of an ``aggregationRule``: ``match_labels`` (key -> value) and ``match_expressions``
    (``(key, operator, values)``, operators ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``), ANDed (Kubernetes
    "Labels and Selectors", https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#resources-that-support-set-based-requirements)."""

    match_labels: dict[str, str] = Field(default_factory=dict)
    match_expressions: list[tuple[str, str, tuple[str, ...]]] = Field(default_factory=list)


class RoleDoc(_M):
    """A Role (``namespace`` set) or ClusterRole (``namespace`` None); a ClusterRole's ``labels`` and, when it
    aggregates others, its ``aggregation`` selectors (None: not an aggregated ClusterRole; Kubernetes "Using RBAC
    Authorization", "Aggregated ClusterRoles",
    https://kubernetes.io/docs/reference/access-authn-authz/rbac/#aggregated-clusterroles)."""

    name: str
    namespace: str | None = None
    rules: list[Rule] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    aggregation: list[LabelSelector] | None = None
    where: Where


class Subject(_M):
    """A binding subject: ``ServiceAccount`` (with namespace), ``User`` or ``Group``."""

    kind: str
    name: str
    namespace: str | None = None


class BindingDoc(_M):
    """A RoleBinding (``namespace`` set) or ClusterRoleBinding, to a Role or ClusterRole."""

    name: str
    namespace: str | None = None
    role_kind: Literal["Role", "ClusterRole"]
    role_name: str
    subjects: list[Subject] = Field(default_factory=list)
    where: Where


class AccessPolicy(_M):
    """An EKS access policy associated with an access entry: its ARN and scope (``namespaces`` None: cluster)."""

    arn: str
    namespaces: list[str] | None = None


class AwsAuthEntry(_M):
    """One ``mapRoles`` / ``mapUsers`` entry of the EKS ``aws-auth`` ConfigMap, or one EKS access entry with its
    associated access policies (``aws eks list-associated-access-policies``: ``cluster`` set)."""

    arn: str
    username: str | None = None
    groups: list[str] = Field(default_factory=list)
    cluster: str | None = None
    policies: list[AccessPolicy] = Field(default_factory=list)
    where: Where


class WorkloadDoc(_M):
    """A Deployment, StatefulSet, DaemonSet, Job or Pod (the ARC controller, listeners, anything with a pod)."""

    kind: str
    name: str
    namespace: str
    pod: PodTemplate
    where: Where


class ClusterInfo(_M):
    """A cluster descriptor: ``graphkit.k8s-cluster/v1`` (``name``, ``server``, ``production``, ``oidc_issuer``)
    or the output of ``aws eks describe-cluster`` (``cluster.name``, ``endpoint``, ``identity.oidc.issuer``, ``arn``;
    https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html)."""

    name: str
    server: str | None = None
    production: bool | None = None
    oidc_issuer: str | None = None
    where: Where


class KubeUser(_M):
    """A kubeconfig user: its credential kind (``token``, ``client-certificate``, ``exec``, ``auth-provider``,
    ``basic``, ``none``) and, for ``aws eks get-token --role-arn`` / ``aws-iam-authenticator -r``, the role."""

    name: str
    credential: str
    role_arn: str | None = None
    eks_cluster: str | None = None


class KubeconfigDoc(_M):
    """A kubeconfig (``kind: Config``): cluster name -> server, users, and context name -> (cluster, user)."""

    clusters: dict[str, str] = Field(default_factory=dict)
    users: list[KubeUser] = Field(default_factory=list)
    contexts: dict[str, tuple[str, str]] = Field(default_factory=dict)
    where: Where


K8sObject = (RunnerPool | ServiceAccountDoc | SecretDoc | RoleDoc | BindingDoc | AwsAuthEntry | WorkloadDoc
             | ClusterInfo | KubeconfigDoc)
