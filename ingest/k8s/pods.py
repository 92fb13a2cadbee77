"""Pod templates and ARC runner pools (pure): what a runner pod can reach, read from its spec.

Sources: Kubernetes PodSpec (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec);
``hostPath`` volumes give access to the node ("Pod Security Standards", baseline profile: "HostPath volumes",
https://kubernetes.io/docs/concepts/security/pod-security-standards/); host namespaces, privileged and Windows
HostProcess containers, added capabilities and ``procMount``: :mod:`ingest.k8s.host_access`;
ARC scale sets (``AutoscalingRunnerSet``, gha-runner-scale-set values: ``githubConfigUrl``, ``githubConfigSecret``,
``runnerGroup``, ``runnerScaleSetName``, ``containerMode``), "Deploying runner scale sets with Actions Runner
Controller", https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/deploy-runner-scale-sets
(``containerMode.type: dind`` adds a privileged ``docker:dind`` container, as the chart's values.yaml documents);
scale set runners are ephemeral (one job each): "Actions Runner Controller",
https://docs.github.com/en/actions/concepts/runners/actions-runner-controller; routing by scale set name or
``runnerScaleSetLabels``: https://docs.github.com/en/actions/tutorials/use-actions-runner-controller/use-arc-in-a-workflow.
Legacy ARC (``actions.summerwind.dev`` ``RunnerDeployment``/``RunnerSet``/``Runner``,
https://github.com/actions/actions-runner-controller/tree/master/docs): ``repository``/``organization``/
``enterprise``, ``group``, ``labels``, ``ephemeral``; the runner pod runs a privileged ``docker`` sidecar unless
``dockerEnabled: false``, or a privileged runner container with ``dockerdWithinRunnerContainer: true``;
``githubAPICredentialsFrom.secretRef`` names a per-pool credentials Secret.
"""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import urlsplit

from ingest.k8s.host_access import CONTAINER_GROUPS, host_access
from ingest.k8s.models import BindingDoc, PodTemplate, RoleDoc, Rule, RunnerPool, Subject, Where
from ingest.k8s.read import Reader

__all__ = ["pod_template", "host_path_controls_node", "config_scope", "scale_set", "values_file", "chart_rbac", "summerwind_pool"]

#: What the gha-runner-scale-set chart renders for the runner pods' service account when the values do not set
#: ``template.spec.serviceAccountName`` (read at commit 11c4b95cbab314553e6df06dc4da825ee85e210a of
#: https://github.com/actions/actions-runner-controller/blob/master/charts/gha-runner-scale-set/templates/kube_mode_role.yaml,
#: ``kube_mode_serviceaccount.yaml``, ``kube_mode_role_binding.yaml``, ``no_permission_serviceaccount.yaml``;
#: names from ``_helpers.tpl``: ``{scale set name}-gha-rs-kube-mode`` / ``-gha-rs-no-permission``): in
#: ``containerMode.type`` ``kubernetes`` / ``kubernetes-novolume`` a ServiceAccount bound to a Role with these
#: rules (``jobs`` not in ``kubernetes-novolume``) plus ``containerMode.kubernetesModeAdditionalRoleRules``
#: (values.yaml), otherwise a ServiceAccount with no RBAC at all.
KUBE_MODE_RULES = (("", "pods", ("get", "list", "create", "delete", "update", "patch")),
                   ("", "pods/exec", ("get", "create")), ("", "pods/log", ("get", "list", "watch")),
                   ("batch", "jobs", ("get", "list", "create", "delete")),
                   ("", "secrets", ("get", "list", "create", "delete")))
_KUBE_MODES = ("kubernetes", "kubernetes-novolume")

#: Container runtime sockets: whoever reaches one starts a privileged container on the node.
_SOCKETS = ("docker.sock", "containerd.sock", "crio.sock")
#: Host paths whose mount (the path, a folder that holds it, or a path inside it) controls the node: the kernel's
#: and the devices' interfaces (/proc, /sys, /dev), configuration and root's home (/etc, /root), what root runs
#: (/boot, /usr, /bin, /sbin, /lib, /lib64), the runtime sockets (/run, /var/run), the kubelet's and the runtimes'
#: state with every pod's service account token and image layers (/var/lib/kubelet, /var/lib/docker,
#: /var/lib/containerd) and /var/log (the kubelet follows a link written there as root).  Pod Security Standards,
#: baseline "HostPath volumes" ("HostPath volumes must be forbidden"),
#: https://kubernetes.io/docs/concepts/security/pod-security-standards/; Kubernetes "Volumes", hostPath ("access
#: to the host filesystem ... can expose privileged system credentials (such as for the Kubelet) or privileged
#: APIs (such as the container runtime socket)"), https://kubernetes.io/docs/concepts/storage/volumes/#hostpath.
_NODE_PATHS = ("/proc", "/sys", "/dev", "/etc", "/root", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/run",
               "/var/run", "/var/lib/kubelet", "/var/lib/docker", "/var/lib/containerd", "/var/log")
#: Controls the node when mounted whole (every user's home); a folder inside it is a host folder.
_NODE_DIRS = ("/home",)


def host_path_controls_node(path: str | None) -> bool | None:
    """Whether a ``hostPath`` volume of ``path`` controls the node (see :data:`_NODE_PATHS`): True for a node path,
    a folder holding one (``/``, ``/var``) or a path inside one, or a runtime socket anywhere; False for another
    host folder (a data directory: shared with the node and its other pods, not the node); None when the path is
    not known (missing, relative, a template placeholder).

    >>> [host_path_controls_node(p) for p in ("/", "/var", "/var/run/docker.sock", "/etc/kubernetes", "/home",
    ...                                       "/srv/x/docker.sock", "/proc/1/root")]
    [True, True, True, True, True, True, True]
    >>> [host_path_controls_node(p) for p in ("/data", "/home/runner/cache", "/var/lib/ci", "/tmp", None, "x",
    ...                                       "{{ .Values.dir }}")]
    [False, False, False, False, None, None, None]
    """
    if not path or not path.startswith("/") or "{{" in path or "$(" in path:
        return None
    p = posixpath.normpath(path)
    p = "/" if p.startswith("//") and p.strip("/") == "" else p
    if p.rsplit("/", 1)[-1] in _SOCKETS or p in _NODE_DIRS:
        return True
    return any(p == n or n.startswith(p.rstrip("/") + "/") or p.startswith(n + "/") for n in _NODE_PATHS)


def _read_only(r: Reader, spec: dict[str, Any], path: str) -> set[str]:
    """The volumes every container mounts read-only (``volumeMounts[].readOnly``), each mounted at least once."""
    mounts: dict[str, bool] = {}
    for group in CONTAINER_GROUPS:
        for i, c in enumerate(r.seq(spec.get(group), f"{path}.{group}")):
            at = f"{path}.{group}[{i}]"
            for j, m in enumerate(r.seq(r.mapping(c, at).get("volumeMounts"), f"{at}.volumeMounts")):
                m = r.mapping(m, f"{at}.volumeMounts[{j}]")
                if isinstance(name := m.get("name"), str):
                    mounts[name] = mounts.get(name, True) and m.get("readOnly") is True
    return {n for n, ro in mounts.items() if ro}


def _host_path_escape(where: str | None, read_only: bool, escapes: list[str], weak: list[str]) -> None:
    """Sort a ``hostPath`` volume into ``escapes`` (it controls the node) or ``weak`` (a host folder, possible)."""
    control = host_path_controls_node(where)
    if control:
        socket = " (container runtime socket)" if (where or "").rsplit("/", 1)[-1] in _SOCKETS else ""
        escapes.append(f"hostPath {where}{socket}")
    elif control is None:
        weak.append(f"hostPath {where or '?'} (path not known: may be a node path)")
    else:
        weak.append(f"hostPath {where} (a host folder{', read-only' if read_only else ''}: shared with the node and "
                    f"its other pods, not the node)")


def _container_facts(r: Reader, spec: dict[str, Any], path: str, secrets: list[str]) -> None:
    """The Secrets the containers read into their environment (their security contexts: :mod:`ingest.k8s.host_access`)."""
    for group in CONTAINER_GROUPS:
        for i, c in enumerate(r.seq(spec.get(group), f"{path}.{group}")):
            at = f"{path}.{group}[{i}]"
            c = r.mapping(c, at)
            r.text(c.get("name"), f"{at}.name")
            for j, env in enumerate(r.seq(c.get("env"), f"{at}.env")):
                ref = r.mapping(r.mapping(r.mapping(env, f"{at}.env[{j}]").get("valueFrom"), f"{at}.env[{j}]")
                                .get("secretKeyRef"), f"{at}.env[{j}].valueFrom.secretKeyRef")
                secrets += [n for n in [r.name(ref.get("name"), f"{at}.env[{j}].valueFrom.secretKeyRef.name")] if n]
            for j, src in enumerate(r.seq(c.get("envFrom"), f"{at}.envFrom")):
                ref = r.mapping(r.mapping(src, f"{at}.envFrom[{j}]").get("secretRef"), f"{at}.envFrom[{j}].secretRef")
                secrets += [n for n in [r.name(ref.get("name"), f"{at}.envFrom[{j}].secretRef.name")] if n]


def _volume_facts(r: Reader, spec: dict[str, Any], path: str, escapes: tuple[list[str], list[str]],
                  secrets: list[str], shared: list[str]) -> None:
    read_only = _read_only(r, spec, path)
    for i, v in enumerate(r.seq(spec.get("volumes"), f"{path}.volumes")):
        at = f"{path}.volumes[{i}]"
        v = r.mapping(v, at)
        host = r.mapping(v.get("hostPath"), f"{at}.hostPath")
        if "hostPath" in v:
            _host_path_escape(r.text(host.get("path"), f"{at}.hostPath.path"), v.get("name") in read_only, *escapes)
        secret = r.mapping(v.get("secret"), f"{at}.secret")
        secrets += [n for n in [r.name(secret.get("secretName"), f"{at}.secret.secretName")] if n]
        projected = r.mapping(v.get("projected"), f"{at}.projected")
        for j, s in enumerate(r.seq(projected.get("sources"), f"{at}.projected.sources")):
            ref = r.mapping(r.mapping(s, f"{at}.projected.sources[{j}]").get("secret"), f"{at}.projected.sources[{j}]")
            secrets += [n for n in [r.name(ref.get("name"), f"{at}.projected.sources[{j}].secret.name")] if n]
        claim = r.mapping(v.get("persistentVolumeClaim"), f"{at}.persistentVolumeClaim")
        shared += [n for n in [r.name(claim.get("claimName"), f"{at}.persistentVolumeClaim.claimName")] if n]


def pod_template(r: Reader, spec: Any, path: str) -> PodTemplate:
    """The facts of a PodSpec at ``path`` (a missing spec is an empty template).

    A field of a security context or host namespace of the wrong type is a note on ``r`` (a problem naming its
    place) and a ``possible`` reason, the object kept (:mod:`ingest.k8s.host_access`).

    Raises
    ------
    ingest.k8s.read.Bad
        naming the YAML path of another field of the wrong type.
    """
    spec = r.mapping(spec, path)
    secrets: list[str] = []
    shared: list[str] = []
    _container_facts(r, spec, path, secrets)
    access = host_access(r, spec, path)
    escapes, weak = access.certain, access.weak
    _volume_facts(r, spec, path, (escapes, weak), secrets, shared)
    selector = r.mapping(spec.get("nodeSelector"), f"{path}.nodeSelector")
    automount = spec.get("automountServiceAccountToken")
    return PodTemplate(service_account=r.name(spec.get("serviceAccountName") or spec.get("serviceAccount"),
                                              f"{path}.serviceAccountName"),
                       automount_token=automount if isinstance(automount, bool) else None,
                       node_selector={str(k): str(v) for k, v in selector.items()},
                       escapes=list(dict.fromkeys(escapes)), weak_escapes=list(dict.fromkeys(weak)),
                       secrets=list(dict.fromkeys(secrets)),
                       shared_volumes=list(dict.fromkeys(shared)))


def config_scope(url: str | None) -> tuple[str | None, str | None]:
    """``(scope, enterprise)`` of a ``githubConfigUrl``: ``https://github.com/ORG`` -> ``("ORG", None)``,
    ``.../ORG/REPO`` -> ``("ORG/REPO", None)``, ``.../enterprises/ENT`` -> ``(None, "ENT")``; GHES hosts alike.

    >>> config_scope("https://github.com/actions/actions-runner-controller")
    ('actions/actions-runner-controller', None)
    >>> config_scope("https://github.com/enterprises/acme-corp"), config_scope("")
    ((None, 'acme-corp'), (None, None))
    """
    if not url:
        return None, None
    try:
        parts = [p for p in urlsplit(url.strip()).path.split("/") if p]
    except ValueError:
        return None, None
    if len(parts) == 2 and parts[0] == "enterprises":
        return None, parts[1]
    if len(parts) in (1, 2):
        return "/".join(parts), None
    return None, None


def _labels(r: Reader, value: Any, path: str) -> list[str]:
    return [x for i, v in enumerate(r.seq(value, path)) if (x := r.text(v, f"{path}[{i}]"))]


def scale_set(r: Reader, doc: dict[str, Any], name: str, namespace: str, where: Where) -> RunnerPool:
    """An ``AutoscalingRunnerSet`` (actions.github.com/v1alpha1): ``spec`` fields as the CRD names them."""
    spec = r.mapping(doc.get("spec"), "spec")
    scope, enterprise = config_scope(r.text(spec.get("githubConfigUrl"), "spec.githubConfigUrl"))
    set_name = r.text(spec.get("runnerScaleSetName"), "spec.runnerScaleSetName") or name
    labels = _labels(r, spec.get("runnerScaleSetLabels", spec.get("scaleSetLabels")), "spec.runnerScaleSetLabels")
    template = r.mapping(spec.get("template"), "spec.template")
    return RunnerPool(resource="AutoscalingRunnerSet", name=set_name, namespace=namespace, scope=scope,
                      enterprise=enterprise, runner_group=r.plain(spec.get("runnerGroup"), "spec.runnerGroup"),
                      labels=[set_name, *labels], ephemeral=True,
                      config_secret=r.name(spec.get("githubConfigSecret"), "spec.githubConfigSecret"),
                      pod=pod_template(r, template.get("spec"), "spec.template.spec"), where=where)


def values_file(r: Reader, doc: dict[str, Any], release: str, where: Where) -> RunnerPool:
    """A gha-runner-scale-set values file: the release name is not in it (``runnerScaleSetName`` when set, else
    ``release``, the file name); an inline ``githubConfigSecret`` mapping becomes the Secret the chart creates
    (``{release}-gha-rs-github-secret``), of which only the key names are kept."""
    scope, enterprise = config_scope(r.text(doc.get("githubConfigUrl"), "githubConfigUrl"))
    name = r.text(doc.get("runnerScaleSetName"), "runnerScaleSetName") or release
    secret = doc.get("githubConfigSecret")
    inline: list[str] = []
    if isinstance(secret, dict):
        inline = sorted(str(k) for k in secret)  # key names only: the values are credentials
        secret_name: str | None = f"{release}-gha-rs-github-secret"
    else:
        secret_name = r.name(secret, "githubConfigSecret")
    mode = r.text(r.mapping(doc.get("containerMode"), "containerMode").get("type"), "containerMode.type")
    pod = pod_template(r, r.mapping(doc.get("template"), "template").get("spec"), "template.spec")
    if pod.service_account is None:  # the chart's own service account (KUBE_MODE_RULES), never ``default``
        suffix = "kube-mode" if mode in _KUBE_MODES else "no-permission"
        pod = pod.model_copy(update={"service_account": f"{name}-gha-rs-{suffix}"[:63].rstrip("-")})
    if mode == "dind":
        pod = pod.model_copy(update={"escapes": [*pod.escapes, "containerMode dind (privileged dind container)"]})
    labels = _labels(r, doc.get("scaleSetLabels", doc.get("runnerScaleSetLabels")), "scaleSetLabels")
    namespace = r.namespace(doc.get("namespaceOverride"), "namespaceOverride") or "default"
    return RunnerPool(resource="values", name=name, namespace=namespace, scope=scope, enterprise=enterprise,
                      runner_group=r.plain(doc.get("runnerGroup"), "runnerGroup"), labels=[name, *labels],
                      ephemeral=True, container_mode=mode, config_secret=secret_name, inline_secret_keys=inline,
                      pod=pod, where=where)


def chart_rbac(r: Reader, doc: dict[str, Any], pool: RunnerPool) -> list[RoleDoc | BindingDoc]:
    """The Role and RoleBinding the chart renders for a values file's pool in kubernetes container mode when the
    values name no service account (see :data:`KUBE_MODE_RULES`); ``[]`` otherwise.

    Raises
    ------
    ingest.k8s.read.Bad
        an additional role rule of the wrong type.
    """
    mode = r.mapping(doc.get("containerMode"), "containerMode")
    sa = pool.pod.service_account
    if pool.container_mode not in _KUBE_MODES or sa is None or not sa.endswith("-gha-rs-kube-mode"):
        return []
    rules = [Rule(api_groups=[g], resources=[res], verbs=list(verbs)) for g, res, verbs in KUBE_MODE_RULES
             if not (res == "jobs" and pool.container_mode == "kubernetes-novolume")]
    at = "containerMode.kubernetesModeAdditionalRoleRules"
    for i, raw in enumerate(r.seq(mode.get("kubernetesModeAdditionalRoleRules"), at)):
        rule = r.mapping(raw, f"{at}[{i}]")
        rules.append(Rule(api_groups=[str(g) for g in r.seq(rule.get("apiGroups"), f"{at}[{i}].apiGroups")],
                          resources=_labels(r, rule.get("resources"), f"{at}[{i}].resources"),
                          verbs=_labels(r, rule.get("verbs"), f"{at}[{i}].verbs"),
                          resource_names=_labels(r, rule.get("resourceNames"), f"{at}[{i}].resourceNames")))
    where = pool.where.model_copy(update={"path": "containerMode.type", "line": r.line("containerMode.type")})
    return [RoleDoc(name=sa, namespace=pool.namespace, rules=rules, where=where),
            BindingDoc(name=sa, namespace=pool.namespace, role_kind="Role", role_name=sa,
                       subjects=[Subject(kind="ServiceAccount", name=sa, namespace=pool.namespace)], where=where)]


def _summerwind_scope(r: Reader, spec: dict[str, Any], path: str) -> tuple[str | None, str | None]:
    repo = r.text(spec.get("repository"), f"{path}.repository")
    org = r.text(spec.get("organization"), f"{path}.organization")
    return repo or org, r.text(spec.get("enterprise"), f"{path}.enterprise")


def summerwind_pool(r: Reader, doc: dict[str, Any], kind: str, name: str, namespace: str, where: Where) -> RunnerPool:
    """A legacy ``RunnerDeployment`` (runner spec under ``spec.template.spec``), ``RunnerSet`` (runner fields
    under ``spec``, pod template under ``spec.template``) or ``Runner`` (``spec``)."""
    spec = r.mapping(doc.get("spec"), "spec")
    if kind == "RunnerDeployment":
        path, runner = "spec.template.spec", r.mapping(r.mapping(spec.get("template"), "spec.template").get("spec"),
                                                        "spec.template.spec")
        pod = pod_template(r, runner, path)
    else:
        path, runner = "spec", spec
        pod_path = "spec.template.spec" if kind == "RunnerSet" else "spec"
        pod = pod_template(r, r.mapping(spec.get("template"), "spec.template").get("spec") if kind == "RunnerSet"
                           else spec, pod_path)
        shared = []
        for i, claim in enumerate(r.seq(spec.get("volumeClaimTemplates"), "spec.volumeClaimTemplates")):
            at = f"spec.volumeClaimTemplates[{i}]"
            meta = r.mapping(r.mapping(claim, at).get("metadata"), f"{at}.metadata")
            shared += [n for n in [r.name(meta.get("name"), f"{at}.metadata.name")] if n]
        pod = pod.model_copy(update={"shared_volumes": list(dict.fromkeys([*pod.shared_volumes, *shared]))})
    scope, enterprise = _summerwind_scope(r, runner, path)
    escapes = list(pod.escapes)
    if runner.get("dockerdWithinRunnerContainer") is True:
        escapes.append("dockerdWithinRunnerContainer (privileged runner container)")
    elif runner.get("dockerEnabled") is not False:
        escapes.append("docker sidecar (privileged; dockerEnabled is not false)")
    creds = r.mapping(r.mapping(runner.get("githubAPICredentialsFrom"), f"{path}.githubAPICredentialsFrom")
                      .get("secretRef"), f"{path}.githubAPICredentialsFrom.secretRef")
    ephemeral = runner.get("ephemeral")
    return RunnerPool(resource=kind, name=name, namespace=namespace, scope=scope, enterprise=enterprise,  # type: ignore[arg-type]
                      runner_group=r.plain(runner.get("group"), f"{path}.group"),
                      labels=["linux", *_labels(r, runner.get("labels"), f"{path}.labels")],
                      ephemeral=ephemeral if isinstance(ephemeral, bool) else None,
                      config_secret=r.name(creds.get("name"), f"{path}.githubAPICredentialsFrom.secretRef.name"),
                      pod=pod.model_copy(update={"escapes": list(dict.fromkeys(escapes))}), where=where)

