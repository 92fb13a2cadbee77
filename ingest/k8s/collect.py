"""``graphkit collect k8s``: a live cluster, read-only, with the official Kubernetes client (the only I/O here).

Only ``list``/``get`` calls (https://kubernetes.io/docs/reference/using-api/api-concepts/), each on its own: a call
the credentials may not make (403) or a resource the cluster does not serve (404: ARC's CRDs not installed) is
one problem naming the API path, and the rest is read.  What is read: ServiceAccounts, Secrets (**key names only**:
values are dropped as each object is read, never written, printed or logged), Roles, ClusterRoles, RoleBindings,
ClusterRoleBindings, the ``aws-auth`` ConfigMap in ``kube-system``, Deployments (the ARC controller), ARC
``autoscalingrunnersets`` (actions.github.com/v1alpha1) and legacy ``runnerdeployments``/``runnersets``
(actions.summerwind.dev/v1alpha1).

The document written is a YAML stream the ``k8s`` ingestor reads: a cluster descriptor
(``graphkit.k8s-cluster/v1``: the API server URL of the kubeconfig context, without credentials) then one
``kind: List`` of the objects.  Kubernetes Python client: https://github.com/kubernetes-client/python
(``config.new_client_from_config``, ``CoreV1Api``, ``RbacAuthorizationV1Api``, ``AppsV1Api``, ``CustomObjectsApi``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphkit.errors import GraphkitError, InputError
from graphkit.redact import strip_url_credentials
from graphkit.registry import CollectResult
from ingest.k8s.parse import CLUSTER_SCHEMA

__all__ = ["COLLECTOR", "K8sCollector", "collect_cluster"]

#: (apiVersion, kind, API path for problems, how to list them)
_Call = tuple[str, str, str, Callable[[], Any]]


def _calls(client: Any) -> list[_Call]:
    from kubernetes import client as k  # an optional dependency: pip install 'graphkit[k8s]'

    core, rbac, apps, custom = k.CoreV1Api(client), k.RbacAuthorizationV1Api(client), k.AppsV1Api(client), \
        k.CustomObjectsApi(client)
    rbac_v = "rbac.authorization.k8s.io/v1"
    out: list[_Call] = [
        ("v1", "ServiceAccount", "/api/v1/serviceaccounts", lambda: core.list_service_account_for_all_namespaces()),
        ("v1", "Secret", "/api/v1/secrets", lambda: core.list_secret_for_all_namespaces()),
        (rbac_v, "Role", "/apis/rbac.authorization.k8s.io/v1/roles", lambda: rbac.list_role_for_all_namespaces()),
        (rbac_v, "ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles", lambda: rbac.list_cluster_role()),
        (rbac_v, "RoleBinding", "/apis/rbac.authorization.k8s.io/v1/rolebindings",
         lambda: rbac.list_role_binding_for_all_namespaces()),
        (rbac_v, "ClusterRoleBinding", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
         lambda: rbac.list_cluster_role_binding()),
        ("apps/v1", "Deployment", "/apis/apps/v1/deployments", lambda: apps.list_deployment_for_all_namespaces()),
        ("v1", "ConfigMap", "/api/v1/namespaces/kube-system/configmaps/aws-auth",
         lambda: core.read_namespaced_config_map("aws-auth", "kube-system")),
    ]
    for group, plural, kind in (("actions.github.com", "autoscalingrunnersets", "AutoscalingRunnerSet"),
                                ("actions.summerwind.dev", "runnerdeployments", "RunnerDeployment"),
                                ("actions.summerwind.dev", "runnersets", "RunnerSet")):
        out.append((f"{group}/v1alpha1", kind, f"/apis/{group}/v1alpha1/{plural}",
                    (lambda g, p: lambda: custom.list_cluster_custom_object(g, "v1alpha1", p))(group, plural)))
    return out


def _items(client: Any, response: Any) -> list[dict[str, Any]]:
    data = response if isinstance(response, dict) else client.sanitize_for_serialization(response)
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return [i for i in data["items"] if isinstance(i, dict)]
    return [data] if isinstance(data, dict) and data.get("metadata") else []


#: kinds a cluster may not serve (404 is "there are none")
_OPTIONAL = frozenset({"ConfigMap", "AutoscalingRunnerSet", "RunnerDeployment", "RunnerSet"})


def _issuer(client: Any) -> str | None:
    """The service account token issuer (``/.well-known/openid-configuration``, Kubernetes "Service account issuer
    discovery", https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#service-account-issuer-discovery);
    None when the cluster does not say (IRSA edges then stay ``possible``)."""
    from kubernetes import client as k

    try:
        raw = k.WellKnownApi(client).get_service_account_issuer_open_id_configuration(_preload_content=False)
        data = json.loads(raw.data)
    except Exception:  # noqa: BLE001 - unknown, not an error: the trust evaluation says possible
        return None
    issuer = data.get("issuer") if isinstance(data, dict) else None
    return issuer if isinstance(issuer, str) and issuer.startswith("https://") else None


def _secret_names(item: dict[str, Any]) -> dict[str, Any]:
    """A Secret without its values: name, namespace, type and key names (values emptied)."""
    meta = item.get("metadata") or {}
    keys = sorted({*(item.get("data") or {}), *(item.get("stringData") or {})})
    return {"metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
            "type": item.get("type"), "data": {k: "" for k in keys}}


def collect_cluster(client: Any, *, server: str, name: str | None = None,
                    production: bool | None = None) -> CollectResult:
    """Read the cluster behind ``client`` (a ``kubernetes.client.ApiClient``) into the ``k8s`` ingestor's format.

    Returns
    -------
    CollectResult
        ``document``: ``{"descriptor": {...}, "list": {"apiVersion": "v1", "kind": "List", "items": [...]}}``
        (written as two YAML documents); ``problems``: the calls that failed (API path, HTTP status);
        ``summary``: objects per kind.
    """
    from kubernetes.client.exceptions import ApiException

    items: list[dict[str, Any]] = []
    problems: list[InputError] = []
    summary: dict[str, int] = {}
    for api_version, kind, path, call in _calls(client):
        try:
            got = _items(client, call())
        except ApiException as exc:
            # 404: no aws-auth ConfigMap (not EKS, or access entries only), or an ARC CRD not installed: none exist
            if exc.status != 404 or kind not in _OPTIONAL:
                problems.append(InputError(f"GET {path}", "", f"HTTP {exc.status} ({exc.reason or 'error'})"))
            continue
        except Exception as exc:  # noqa: BLE001 - a connection error: named, never its message's payload
            problems.append(InputError(f"GET {path}", "", f"not read ({type(exc).__name__})"))
            continue
        for item in got:
            item = _secret_names(item) if kind == "Secret" else item
            items.append({**item, "apiVersion": api_version, "kind": kind})
        summary[kind] = len(got)
    clean = strip_url_credentials(server).url
    descriptor: dict[str, Any] = {"schema": CLUSTER_SCHEMA, "name": name or clean, "server": clean}
    if production is not None:
        descriptor["production"] = production
    issuer = _issuer(client)
    if issuer:
        descriptor["oidc_issuer"] = issuer
    return CollectResult(document={"descriptor": descriptor, "list": {"apiVersion": "v1", "kind": "List",
                                                                      "items": items}},
                         problems=problems, summary=summary)


class K8sCollector:
    """The ``k8s`` collector (``graphkit collect k8s``)."""

    name = "k8s"
    description = "A live Kubernetes cluster (read-only list calls): ARC scale sets, RBAC, service accounts, Secrets"

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """Connect with the kubeconfig ``options["kubeconfig"]`` (default: the client's) and context
        ``options["context"]``, then :func:`collect_cluster`.

        Raises
        ------
        GraphkitError
            when the client is not installed or the kubeconfig cannot be used.
        """
        try:
            from kubernetes import config
        except ImportError:
            raise GraphkitError("graphkit collect k8s needs the Kubernetes client: pip install 'graphkit[k8s]'") from None
        try:
            client = config.new_client_from_config(config_file=options.get("kubeconfig"),
                                                   context=options.get("context"))
        except Exception as exc:  # noqa: BLE001 - the client raises ConfigException, TypeError, OSError...
            raise GraphkitError(f"cannot use the kubeconfig ({type(exc).__name__})") from None
        with client:
            return collect_cluster(client, server=client.configuration.host, name=options.get("name"),
                                   production=options.get("production"))


COLLECTOR = K8sCollector()
