"""Kubernetes node kinds (issue 15): service accounts, Secrets, and what graphkit knows of a runner's pods.

A cluster is a :class:`~graphkit.model.nodes.DeploymentTarget` of ``target_type`` ``cluster`` (id
``target:cluster:{API server URL or name}``, :func:`graphkit.model.ids.target`); its nodes are
:class:`~graphkit.model.nodes.Host` nodes standing for the nodes a pod's ``nodeSelector`` picks
(:func:`graphkit.model.ids.k8s_node_pool`); an Actions Runner Controller scale set is a
:class:`~graphkit.model.nodes.Runner` pool whose :attr:`~graphkit.model.nodes.Runner.pods` says what its pods are.

Sources: Kubernetes "Service accounts" (https://kubernetes.io/docs/concepts/security/service-accounts/),
"Secrets" (https://kubernetes.io/docs/concepts/configuration/secret/), ARC "Deploying runner scale sets"
(https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/deploy-runner-scale-sets).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphkit.model.enums import Criticality, NodeKind, RevocationAction
from graphkit.model.node import Node, NodeSpec

__all__ = ["RunnerPods", "KubeServiceAccount", "KubeSecret"]


class RunnerPods(BaseModel):
    """What the pods of an ARC runner pool are (from its pod template; never a secret value).

    ``cluster``: the cluster's target id.  ``resource``: the ARC object (``AutoscalingRunnerSet/arc-runners``,
    ``RunnerDeployment/x``, ``values.yaml`` of the gha-runner-scale-set chart).  ``service_account``: the id of
    the service account the pods run as (``default`` when the template names none).  ``node_selector``: the
    template's ``nodeSelector``.  ``escapes``: why a job in the pod controls the node it runs on (a privileged
    or Windows HostProcess container, ``hostPID`` with ``SYS_PTRACE``, a ``hostPath`` of a node path, a runtime
    socket) or may (a ``hostPath`` of another host folder, or of a path not known, a host namespace, an added
    capability, ``procMount: Unmasked``, a field of the wrong type: its ``runs_on_host`` edge is then ``possible``),
    empty when nothing lets it out.  ``container_mode``:
    ``dind``, ``kubernetes``, ``kubernetes-novolume`` or None.  ``config_secret``: the id of the Secret holding
    the GitHub App key or PAT the controller registers the pods with (``githubConfigSecret``).
    ``mounted_secrets``: ids of the Secrets the pods mount or read into their environment.
    ``shared_volumes``: volumes that outlive the pod (a ``persistentVolumeClaim``, a RunnerSet
    ``volumeClaimTemplates`` claim) and that later pods of the pool mount again.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    cluster: str
    namespace: str
    resource: str
    service_account: str | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    escapes: list[str] = Field(default_factory=list)
    container_mode: str | None = None
    config_secret: str | None = None
    mounted_secrets: list[str] = Field(default_factory=list)
    shared_volumes: list[str] = Field(default_factory=list)

    @property
    def scale_set(self) -> bool:
        """A runner scale set (``AutoscalingRunnerSet``, a gha-runner-scale-set values file), not a legacy
        ``actions.summerwind.dev`` pool: its runners are registered without ``config.sh`` and so without the
        default labels (``self-hosted``, OS, architecture); a job reaches them by the scale set's name (and its
        ``runnerScaleSetLabels``) alone ("Using ARC runners in a workflow": "You cannot use additional labels to
        target runners created by ARC",
        https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/use-arc-in-a-workflow;
        https://github.com/actions/actions-runner-controller/issues/3330: no ``self-hosted`` label on scale set
        runners, so ``runs-on: [self-hosted, NAME]`` stays queued)."""
        return self.resource == "values" or self.resource.startswith("AutoscalingRunnerSet/")


class KubeServiceAccount(Node):
    """A Kubernetes service account: pods that run as it hold its token, and act with its RBAC and the cloud
    identity its annotations bind (EKS IRSA ``eks.amazonaws.com/role-arn``,
    https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html; GKE
    ``iam.gke.io/gcp-service-account``, https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity;
    Azure ``azure.workload.identity/client-id``, https://azure.github.io/azure-workload-identity/docs/).

    ``oidc_issuer``: the cluster's service account token issuer when known (EKS:
    ``https://oidc.eks.REGION.amazonaws.com/id/ID``), used to evaluate the IAM role's trust.
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.K8S_SERVICE_ACCOUNT, label="KubeServiceAccount",
                                        revoked_by=RevocationAction.ROTATE_SERVICE_ACCOUNT_TOKENS,
                                        default_criticality=Criticality.HIGH,
                                        description="A Kubernetes service account (its token, RBAC and cloud "
                                        "identity)")
    kind: Literal["k8s_service_account"] = "k8s_service_account"
    cluster: str
    namespace: str
    account_name: str
    aws_role_arn: str | None = None
    gcp_service_account: str | None = None
    azure_client_id: str | None = None
    oidc_issuer: str | None = None


class KubeSecret(Node):
    """A Kubernetes Secret: its name, type and key names, never a value.

    ``github_credential``: ``app`` (``github_app_id`` + ``github_app_private_key``) or ``pat``
    (``github_token``) when it is an ARC ``githubConfigSecret`` (ARC "Authenticating to the GitHub API",
    https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/authenticate-to-the-api);
    ``keys`` None when the Secret itself was not read (only referenced).
    """

    spec: ClassVar[NodeSpec] = NodeSpec(kind=NodeKind.K8S_SECRET, label="KubeSecret",
                                        revoked_by=RevocationAction.ROTATE_SECRET, copyable=True,
                                        default_criticality=Criticality.HIGH,
                                        description="A Kubernetes Secret (names and keys only)")
    kind: Literal["k8s_secret"] = "k8s_secret"
    cluster: str
    namespace: str
    secret_name: str
    secret_type: str | None = None
    keys: list[str] | None = None
    github_credential: Literal["app", "pat"] | None = None
