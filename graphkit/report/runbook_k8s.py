"""Runbook actions for Kubernetes and Actions Runner Controller subjects (issue 15).

Each function takes the plan step's subject node and the graph and returns
:class:`~graphkit.report.runbook.Action` s (commands shell-quoted, never a
secret value).  Sources of the commands:

- ARC: "Deploying runner scale sets with Actions Runner Controller" (``helm uninstall`` of the scale set release
  deletes the AutoscalingRunnerSet, and the controller deletes its scale set registration at GitHub),
  https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/deploy-runner-scale-sets;
  "Authenticating to the GitHub API" (the ``githubConfigSecret`` keys ``github_token``, ``github_app_id``,
  ``github_app_installation_id``, ``github_app_private_key``),
  https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/authenticate-to-the-api;
- Kubernetes: ``kubectl cordon`` / ``drain`` ("Safely Drain a Node",
  https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/), service account tokens ("Service
  accounts", https://kubernetes.io/docs/concepts/security/service-accounts/ and "Managing Service Accounts",
  https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/), RBAC ("Using RBAC
  Authorization", https://kubernetes.io/docs/reference/access-authn-authz/rbac/), Secrets
  (https://kubernetes.io/docs/concepts/configuration/secret/);
- EKS ``aws-auth`` ConfigMap ("Grant IAM users and roles access to Kubernetes APIs",
  https://docs.aws.amazon.com/eks/latest/userguide/auth-configmap.html).
"""

from __future__ import annotations

from shlex import quote
from typing import TYPE_CHECKING

from graphkit.graph import Graph
from graphkit.model import EdgeKind, Host, KubeSecret, KubeServiceAccount, Node, RevocationAction, Runner

if TYPE_CHECKING:  # pragma: no cover
    from graphkit.report.runbook import Action

__all__ = ["purge_volumes", "delete_scale_set", "rotate_controller_credential", "rotate_service_account_tokens",
           "remove_rbac_binding", "replace_nodes", "rotate_kube_secret"]

_ARC_DEPLOY = "https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/deploy-runner-scale-sets"
_ARC_AUTH = "https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/authenticate-to-the-api"
_DRAIN = "https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/"
_SA_DOC = "https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/"
_RBAC_DOC = "https://kubernetes.io/docs/reference/access-authn-authz/rbac/"
_SECRET_DOC = "https://kubernetes.io/docs/concepts/configuration/secret/"
_AWS_AUTH_DOC = "https://docs.aws.amazon.com/eks/latest/userguide/auth-configmap.html"
_APP_KEY_DOC = ("https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/"
                "managing-private-keys-for-github-apps")


def _action(*args: object, **kw: object) -> "Action":
    from graphkit.report.runbook import Action  # the one Action type (runbook imports this module)
    return Action(*args, **kw)  # type: ignore[arg-type]


def _cmd(*argv: str) -> str:
    return " ".join(quote(a) for a in argv)


def delete_scale_set(node: Node, graph: Graph) -> list["Action"]:
    """Delete an ARC runner pool: its Kubernetes object (the controller removes the scale set at GitHub)."""
    pods = node.pods if isinstance(node, Runner) else None
    if pods is None:
        return [_action(f"Delete the runner scale set {node.name} (helm uninstall of its release)", _ARC_DEPLOY,
                        "manual")]
    kind, _, name = pods.resource.partition("/")
    if kind in ("AutoscalingRunnerSet", "RunnerDeployment", "RunnerSet"):
        cmd = _cmd("kubectl", "delete", kind.lower(), name, "--namespace", pods.namespace)
    else:  # Helm values: the release is the scale set
        cmd = _cmd("helm", "uninstall", node.name, "--namespace", pods.namespace)
    return [_action(f"Delete the runner scale set {node.name} ({pods.resource}) so that no job is routed to its "
                    "pods; check at GitHub that the scale set is gone (Settings > Actions > Runners)", _ARC_DEPLOY,
                    "api", cmd)]


def purge_volumes(node: Node, graph: Graph) -> list["Action"]:
    """Delete the PersistentVolumeClaims an ARC pool's pods mount again (a RunnerSet's are named
    ``{template}-{pod}``, "StatefulSets", https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/)."""
    pods = node.pods if isinstance(node, Runner) else None
    if pods is None or not pods.shared_volumes:
        return [_action(f"Delete the volumes {node.name}'s pods share", _SECRET_DOC, "manual")]
    return [_action(f"Delete the PersistentVolumeClaims of {', '.join(pods.shared_volumes)} in {pods.namespace} "
                    "(a RunnerSet's claims are named after the template and the pod) so no later job mounts what a "
                    "job left there", "https://kubernetes.io/docs/concepts/storage/persistent-volumes/", "manual")]


def rotate_controller_credential(node: Node, graph: Graph) -> list["Action"]:
    """Rotate the GitHub App key or PAT held in an ARC ``githubConfigSecret``, then replace the Secret."""
    if not isinstance(node, KubeSecret):
        return [_action(f"Rotate the GitHub credential held in {node.name}", _ARC_AUTH, "manual")]
    if node.github_credential == "pat":
        issue = _action("Delete the personal access token stored as github_token (its owner's settings) and issue "
                        "a new one", _ARC_AUTH, "manual")
    else:
        issue = _action("Delete the GitHub App private key stored as github_app_private_key (App settings > "
                        "Private keys) and generate a new one", _APP_KEY_DOC, "manual")
    scopes = sorted({e.props["scope"] for e in graph.out_edges(node.id)
                     if e.kind is EdgeKind.CAN_REGISTER_RUNNER and e.props.get("scope")})
    listing = [_action(f"List the runners and scale sets of {s} and remove any registered since the compromise",
                       "https://docs.github.com/en/rest/actions/self-hosted-runners", "manual") for s in scopes]
    return [issue, *listing, *_replace_secret(node)]


def _replace_secret(node: KubeSecret) -> list["Action"]:
    return [_action(f"Replace the Secret {node.namespace}/{node.secret_name} with the new value (kubectl create "
                    "secret generic ... --dry-run=client -o yaml | kubectl apply -f -, the value from a file, never "
                    "on the command line), then restart the pods that use it", _SECRET_DOC, "manual")]


def rotate_kube_secret(node: Node, graph: Graph) -> list["Action"]:
    """Rotate a Kubernetes Secret's values at their issuer (an ARC config secret: the GitHub App key or PAT)."""
    if not isinstance(node, KubeSecret):
        return [_action(f"Rotate {node.name} at its issuer", _SECRET_DOC, "manual")]
    if node.github_credential or any(e.kind is EdgeKind.CAN_REGISTER_RUNNER for e in graph.out_edges(node.id)):
        return rotate_controller_credential(node, graph)
    keys = ", ".join(node.keys or []) or "its keys"
    return [_action(f"Revoke the values of {node.namespace}/{node.secret_name} ({keys}) at their issuer", _SECRET_DOC,
                    "manual"), *_replace_secret(node)]


def rotate_service_account_tokens(node: Node, graph: Graph) -> list["Action"]:
    """Invalidate a service account's tokens: bound tokens die with the object, legacy token Secrets with it."""
    if not isinstance(node, KubeServiceAccount):
        return [_action(f"Rotate the tokens of {node.name}", _SA_DOC, "manual")]
    ns, name = node.namespace, node.account_name
    return [_action(f"Delete and recreate the service account {ns}/{name} (its bound tokens stop validating; "
                    "delete any kubernetes.io/service-account-token Secret of it), then restart its pods", _SA_DOC,
                    "api", _cmd("kubectl", "delete", "serviceaccount", name, "--namespace", ns))]


def remove_rbac_binding(node: Node, graph: Graph) -> list["Action"]:
    """Remove the bindings (or aws-auth entries) recorded on the edges this step cuts."""
    edges = [e for e in [*graph.out_edges(node.id), *graph.in_edges(node.id)]
             if e.revoked_by is RevocationAction.REMOVE_RBAC_BINDING]
    out = []
    for binding in sorted({str(e.props["binding"]) for e in edges if e.props.get("binding")}):
        kind, _, rest = binding.partition("/")
        if kind == "aws-auth":
            out.append(_action(f"Remove the mapping of {rest} from the aws-auth ConfigMap (kube-system), or its "
                               "system:masters group", _AWS_AUTH_DOC, "api",
                               _cmd("kubectl", "edit", "configmap", "aws-auth", "--namespace", "kube-system")))
            continue
        ns, _, name = rest.rpartition("/")
        argv = ["kubectl", "delete", kind.lower(), name] + (["--namespace", ns] if ns else [])
        out.append(_action(f"Remove the {kind} {rest}", _RBAC_DOC, "api", _cmd(*argv)))
    return out or [_action(f"Remove the RBAC bindings that grant {node.name} this access", _RBAC_DOC, "manual")]


def replace_nodes(node: Node, graph: Graph) -> list["Action"]:
    """Cordon, drain and replace the nodes a node pool stands for."""
    if not isinstance(node, Host) or node.cluster is None:
        return [_action(f"Cordon, drain and replace {node.name}", _DRAIN, "manual")]
    selector = ",".join(f"{k}={v}" for k, v in sorted((node.node_selector or {}).items()))
    replace = _action("Replace each drained node from a known-good image (a node a privileged pod ran on is "
                      "assumed compromised)", _DRAIN, "manual")
    if not selector:  # the pods may land on any node of the cluster
        return [_action(f"Cordon and drain every node the runner pods may have run on ({node.name}: no "
                        "nodeSelector)", _DRAIN, "manual"), replace]
    return [_action(f"Cordon the nodes of {node.name} so no new pod lands there", _DRAIN, "api",
                    _cmd("kubectl", "cordon", "--selector", selector)),
            _action("Drain them", _DRAIN, "api",
                    _cmd("kubectl", "drain", "--selector", selector, "--ignore-daemonsets", "--delete-emptydir-data")),
            replace]
