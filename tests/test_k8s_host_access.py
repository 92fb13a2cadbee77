"""Host namespaces and security contexts of runner pods (``ingest/k8s/host_access.py``).

Manifests written from the Kubernetes documentation: Pod Security Standards, baseline profile
(https://kubernetes.io/docs/concepts/security/pod-security-standards/: "HostProcess", "Host Namespaces",
"Privileged Containers", "Capabilities", "/proc Mount Type"), the PodSpec and SecurityContext reference
(https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/) and "Create a Windows HostProcess
Pod" (https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/).  What is certain and what
is possible, and why, is the module docstring of :mod:`ingest.k8s.host_access`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import require
from graphkit.build import build_graph
from graphkit.model import EdgeKind, ids
from ingest.k8s import parse
from ingest.k8s.host_access import BASELINE_CAPABILITIES, LINUX_CAPABILITIES
from ingest.k8s.models import RunnerPool, WorkloadDoc

ANY_NODE = ids.k8s_node_pool("k8s", {})
RID = ids.runner("acme", "s")
T = "spec.template.spec"
CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "k8s" / "actions__actions-runner-controller"


def _scale_set(spec: str) -> str:
    """An AutoscalingRunnerSet (actions.github.com/v1alpha1) whose pod template's spec is ``spec``."""
    return ("apiVersion: actions.github.com/v1alpha1\nkind: AutoscalingRunnerSet\nmetadata: {name: s, namespace: arc}\n"
            "spec:\n  githubConfigUrl: https://github.com/acme\n  githubConfigSecret: arc-app\n  template:\n    spec:\n"
            + textwrap.indent(textwrap.dedent(spec), "      "))


def _build(tmp_path: Path, text: str):
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "arc.yaml").write_text(text)
    return build_graph({"k8s": [tmp_path / "k8s"]})


def _runs_on_host(result) -> tuple[str, list[str]] | None:
    edges = [e for e in result.graph.out_edges(RID) if e.kind is EdgeKind.RUNS_ON_HOST]
    if not edges:
        return None
    (edge,) = edges
    assert edge.target == ANY_NODE and edge.props["escapes"] == result.graph.node(RID).pods.escapes
    return edge.confidence.value, edge.props["escapes"]


RUNNER = "containers:\n- name: runner\n  image: ghcr.io/actions/actions-runner:latest\n"


@pytest.mark.parametrize("spec, confidence, escapes", [
    # Host Namespaces: each alone shares data of the node, not the node
    ("hostPID: true\n" + RUNNER, "possible",
     [f"{T}.hostPID: the node's process namespace: sees the node's processes, reads other pods' environment and files"]),
    ("hostIPC: true\n" + RUNNER, "possible",
     [f"{T}.hostIPC: the node's IPC namespace: shared memory and message queues of the node's processes"]),
    ("hostNetwork: true\n" + RUNNER, "possible",
     [f"{T}.hostNetwork: the node's network namespace: services on its loopback, its network identity (cloud "
      f"metadata credentials)"]),
    # hostPID with CAP_SYS_PTRACE in the second container: the node's PID 1 and its root file system
    ("hostPID: true\n" + RUNNER + "- name: debug\n  securityContext:\n    capabilities: {add: [SYS_PTRACE]}\n", "certain",
     [f"{T}.hostPID with {T}.containers[1].securityContext.capabilities.add[0] (SYS_PTRACE, container debug): traces "
      f"the node's processes, its root file system through /proc/1/root",
      f"{T}.hostPID: the node's process namespace: sees the node's processes, reads other pods' environment and files",
      f"{T}.containers[1].securityContext.capabilities.add[0]: capability SYS_PTRACE added to container debug (traces "
      f"the pod's processes; with spec.hostPID, the node's)"]),
    # ALL includes SYS_PTRACE; the CAP_ prefix and the case are the runtime's, not the capability's
    ("hostPID: true\ninitContainers:\n- name: i\n  securityContext: {capabilities: {add: [all]}}\n" + RUNNER, "certain",
     [f"{T}.hostPID with {T}.initContainers[0].securityContext.capabilities.add[0] (ALL, container i): traces the "
      f"node's processes, its root file system through /proc/1/root",
      f"{T}.hostPID: the node's process namespace: sees the node's processes, reads other pods' environment and files",
      f"{T}.initContainers[0].securityContext.capabilities.add[0]: capability ALL added to container i (every "
      f"capability)"]),
    # hostPID with SYS_ADMIN but not SYS_PTRACE: PID 1's /proc entries stay behind the ptrace access check
    ("hostPID: true\ncontainers:\n- name: runner\n  securityContext: {capabilities: {add: [CAP_SYS_ADMIN]}}\n", "possible",
     [f"{T}.hostPID: the node's process namespace: sees the node's processes, reads other pods' environment and files",
      f"{T}.containers[0].securityContext.capabilities.add[0]: capability SYS_ADMIN added to container runner (mount "
      f"and the many other operations capabilities(7) calls overloaded)"]),
    # Capabilities beyond the baseline set: possible, each with its place; the baseline's own set: nothing
    ("containers:\n- name: runner\n  securityContext:\n    capabilities:\n"
     "      add: [NET_BIND_SERVICE, SYS_MODULE, dac_read_search, NET_ADMIN, BPF, NET_RAW]\n", "possible",
     [f"{T}.containers[0].securityContext.capabilities.add[1]: capability SYS_MODULE added to container runner (loads "
      f"modules into the node's kernel unless a seccomp or LSM profile refuses)",
      f"{T}.containers[0].securityContext.capabilities.add[2]: capability DAC_READ_SEARCH added to container runner "
      f"(open_by_handle_at(2): files of a node file system mounted into the container)",
      f"{T}.containers[0].securityContext.capabilities.add[3]: capability NET_ADMIN added to container runner "
      f"(configures the pod's network; with spec.hostNetwork, the node's firewall and routes)",
      f"{T}.containers[0].securityContext.capabilities.add[4]: capability BPF added to container runner (loads eBPF "
      f"programs into the node's kernel)",
      f"{T}.containers[0].securityContext.capabilities.add[5]: capability NET_RAW added to container runner (beyond "
      f"the baseline set, a known privilege escalation)"]),
    # /proc Mount Type
    ("containers:\n- name: runner\n  securityContext: {procMount: Unmasked}\n", "possible",
     [f"{T}.containers[0].securityContext.procMount: procMount Unmasked in container runner (/proc without the "
      f"runtime's masked paths)"]),
    # HostProcess, pod level and container level: a process of the Windows node
    ("hostNetwork: true\nsecurityContext:\n  windowsOptions: {hostProcess: true, runAsUserName: \"NT AUTHORITY\\\\SYSTEM\"}\n"
     + RUNNER, "certain",
     [f"{T}.securityContext.windowsOptions.hostProcess: Windows HostProcess pod (its containers are processes of the "
      f"node)",
      f"{T}.hostNetwork: the node's network namespace: services on its loopback, its network identity (cloud "
      f"metadata credentials)"]),
    ("containers:\n- name: win\n  securityContext: {windowsOptions: {hostProcess: true}}\n", "certain",
     [f"{T}.containers[0].securityContext.windowsOptions.hostProcess: Windows HostProcess container win (a process "
      f"of the node)"]),
    # Privileged Containers: the reason names the field and the container
    ("initContainers:\n- name: setup\n  securityContext: {privileged: true}\n" + RUNNER, "certain",
     [f"{T}.initContainers[0].securityContext.privileged: privileged container setup"]),
])
def test_host_namespaces_and_security_contexts(tmp_path, spec, confidence, escapes):
    result = _build(tmp_path, _scale_set(spec))
    assert result.problems == []
    assert _runs_on_host(result) == (confidence, escapes)


@pytest.mark.parametrize("spec", [
    # the allowed values of the baseline profile: false, undefined, the default capability set, procMount Default
    "hostPID: false\nhostIPC: false\nhostNetwork: false\n" + RUNNER,
    "securityContext: {windowsOptions: {hostProcess: false}}\ncontainers:\n- name: runner\n  securityContext:\n"
    "    privileged: false\n    procMount: Default\n    capabilities: {drop: [ALL], add: [NET_BIND_SERVICE, CHOWN, "
    "KILL, SYS_CHROOT]}\n",
])
def test_what_the_baseline_allows_lets_nothing_out(tmp_path, spec):
    result = _build(tmp_path, _scale_set(spec))
    assert result.problems == [] and _runs_on_host(result) is None
    assert result.graph.node(RID).pods.escapes == []


def test_a_name_that_is_no_capability_is_possible_and_never_shown(tmp_path):
    """``capabilities.add`` holding free text (a Helm placeholder, a typo, anything): possible, the text not repeated."""
    spec = "containers:\n- name: runner\n  securityContext: {capabilities: {add: ['{{ .Values.extraCap }}']}}\n"
    result = _build(tmp_path, _scale_set(spec))
    assert result.problems == []
    assert _runs_on_host(result) == ("possible", [
        f"{T}.containers[0].securityContext.capabilities.add[0]: capability not known added to container runner (not "
        f"a Linux capability name: the runtime may refuse it or read it otherwise)"])


def test_baseline_capabilities_are_the_documented_list():
    """Pod Security Standards, baseline "Capabilities", allowed values (13 names)."""
    assert sorted(BASELINE_CAPABILITIES) == [
        "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP",
        "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]
    assert BASELINE_CAPABILITIES < LINUX_CAPABILITIES and len(LINUX_CAPABILITIES) == 42  # 41 in capabilities(7), ALL


# --------------------------------------------------------------------------- hostile types: unknown, never false

@pytest.mark.parametrize("spec, place, reason, escape", [
    ('hostPID: "yes"\n' + RUNNER, f"{T}.hostPID, line 9", "expected true or false, found a string",
     f"{T}.hostPID: could not be read (expected true or false, found a string): may share the node's process "
     f"namespace"),
    ("hostNetwork: [true]\n" + RUNNER, f"{T}.hostNetwork, line 9", "expected true or false, found a sequence",
     f"{T}.hostNetwork: could not be read (expected true or false, found a sequence): may share the node's network "
     f"namespace"),
    ("hostIPC: 1\n" + RUNNER, f"{T}.hostIPC, line 9", "expected true or false, found an int",
     f"{T}.hostIPC: could not be read (expected true or false, found an int): may share the node's IPC namespace"),
    ("securityContext: [windowsOptions]\n" + RUNNER, f"{T}.securityContext, line 9",
     "expected a mapping, found a sequence",
     f"{T}.securityContext: could not be read (expected a mapping, found a sequence): Windows hostProcess of the pod "
     f"not known"),
    ("containers:\n- name: runner\n  securityContext: [privileged]\n", f"{T}.containers[0].securityContext, line 11",
     "expected a mapping, found a sequence",
     f"{T}.containers[0].securityContext: could not be read (expected a mapping, found a sequence): privileged, "
     f"capabilities, procMount and hostProcess of container runner not known"),
    ('containers:\n- name: runner\n  securityContext: {privileged: "true"}\n',
     f"{T}.containers[0].securityContext.privileged, line 11", "expected true or false, found a string",
     f"{T}.containers[0].securityContext.privileged: could not be read (expected true or false, found a string): "
     f"container runner may be privileged"),
    ("containers:\n- name: runner\n  securityContext: {capabilities: [SYS_ADMIN]}\n",
     f"{T}.containers[0].securityContext.capabilities, line 11", "expected a mapping, found a sequence",
     f"{T}.containers[0].securityContext.capabilities: could not be read (expected a mapping, found a sequence): "
     f"capabilities of container runner not known"),
    ("containers:\n- name: runner\n  securityContext: {capabilities: {add: SYS_ADMIN}}\n",
     f"{T}.containers[0].securityContext.capabilities.add, line 11", "expected a sequence, found a string",
     f"{T}.containers[0].securityContext.capabilities.add: could not be read (expected a sequence, found a string): "
     f"capabilities added to container runner not known"),
    ("containers:\n- name: runner\n  securityContext:\n    capabilities:\n      add:\n      - {SYS_ADMIN: true}\n",
     f"{T}.containers[0].securityContext.capabilities.add[0], line 14", "expected a string, found a mapping",
     f"{T}.containers[0].securityContext.capabilities.add[0]: could not be read (expected a string, found a mapping): "
     f"a capability added to container runner not known"),
    ("ephemeralContainers:\n- name: dbg\n  securityContext: {windowsOptions: {hostProcess: yes please}}\n" + RUNNER,
     f"{T}.ephemeralContainers[0].securityContext.windowsOptions.hostProcess, line 11",
     "expected true or false, found a string",
     f"{T}.ephemeralContainers[0].securityContext.windowsOptions.hostProcess: could not be read (expected true or "
     f"false, found a string): container dbg may be a Windows HostProcess container"),
    ("containers:\n- name: runner\n  securityContext: {procMount: {type: Unmasked}}\n",
     f"{T}.containers[0].securityContext.procMount, line 11", "expected a string, found a mapping",
     f"{T}.containers[0].securityContext.procMount: could not be read (expected a string, found a mapping): /proc of "
     f"container runner may be unmasked"),
])
def test_a_field_of_the_wrong_type_is_a_problem_and_possible(tmp_path, spec, place, reason, escape):
    """The pool is kept (its other facts stand), the field is named with its line, and what it would have said is
    unknown: the pool may take its node (``possible``), never "no access"."""
    result = _build(tmp_path, _scale_set(spec))
    f = str(tmp_path / "k8s" / "arc.yaml")
    assert [(p.file, p.place, p.reason) for p in result.problems] == [(f, place, reason)]
    assert _runs_on_host(result) == ("possible", [escape])
    assert result.graph.node(RID).pods.config_secret == ids.k8s_secret("k8s", "arc", "arc-app")


def test_a_wrong_type_does_not_hide_what_is_certain(tmp_path):
    """A privileged container next to an unreadable hostPID: certain, both reasons kept."""
    spec = 'hostPID: "on"\ncontainers:\n- name: dind\n  securityContext: {privileged: true}\n'
    result = _build(tmp_path, _scale_set(spec))
    assert [p.place for p in result.problems] == [f"{T}.hostPID, line 9"]
    assert _runs_on_host(result) == ("certain", [
        f"{T}.containers[0].securityContext.privileged: privileged container dind",
        f"{T}.hostPID: could not be read (expected true or false, found a string): may share the node's process "
        f"namespace"])


# --------------------------------------------------------------------------- every workload kind the module reads

WORKLOAD = """\
apiVersion: {api}
kind: {kind}
metadata: {{name: w, namespace: ci}}
spec:
  template:
    spec:
      hostNetwork: true
      containers:
      - name: agent
        securityContext: {{capabilities: {{add: [SYS_ADMIN]}}}}
"""


@pytest.mark.parametrize("api, kind", [("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"),
                                       ("apps/v1", "DaemonSet"), ("apps/v1", "ReplicaSet"), ("batch/v1", "Job")])
def test_workload_pod_templates(api, kind):
    parsed = parse(WORKLOAD.format(api=api, kind=kind), "w.yaml")
    [doc] = parsed.objects
    assert isinstance(doc, WorkloadDoc) and parsed.problems == []
    assert (doc.pod.escapes, doc.pod.weak_escapes) == ([], [
        f"{T}.hostNetwork: the node's network namespace: services on its loopback, its network identity (cloud "
        f"metadata credentials)",
        f"{T}.containers[0].securityContext.capabilities.add[0]: capability SYS_ADMIN added to container agent (mount "
        f"and the many other operations capabilities(7) calls overloaded)"])


def test_pod_ephemeral_container_and_list_items():
    """A Pod as ``kubectl get -o yaml`` prints it, inside a ``kind: List``: its ephemeral container (added by
    ``kubectl debug``) is read like the others, and the reason's path is the document's."""
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: p, namespace: ci}
          spec:
            hostPID: true
            containers: [{name: app}]
            ephemeralContainers:
            - name: debugger
              securityContext: {privileged: true}
        """)
    parsed = parse(text, "pods.yaml")
    [doc] = parsed.objects
    assert parsed.problems == [] and doc.kind == "Pod"
    assert doc.pod.escapes == ["items[0].spec.ephemeralContainers[0].securityContext.privileged: privileged container "
                               "debugger"]
    assert doc.pod.weak_escapes == ["items[0].spec.hostPID: the node's process namespace: sees the node's processes, "
                                    "reads other pods' environment and files"]


def test_a_problem_in_a_list_item_names_the_item():
    text = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n"
            "    hostIPC: 'true'\n")
    parsed = parse(text, "pods.yaml")
    assert [(p.place, p.reason) for p in parsed.problems] == [("items[0].spec.hostIPC, line 8",
                                                               "expected true or false, found a string")]
    assert parsed.objects[0].pod.weak_escapes == [
        "items[0].spec.hostIPC: could not be read (expected true or false, found a string): may share the node's IPC "
        "namespace"]


def test_values_file_and_legacy_runner_deployment():
    """A gha-runner-scale-set values file (``template.spec``) and a legacy RunnerDeployment (``spec.template.spec``,
    with its privileged docker sidecar): the same fields, at their own paths."""
    values = parse("githubConfigUrl: https://github.com/acme\ngithubConfigSecret: arc-app\ntemplate:\n  spec:\n"
                   "    hostPID: true\n    containers:\n    - name: runner\n"
                   "      securityContext: {capabilities: {add: [SYS_PTRACE]}}\n", "arc/values.yaml")
    [pool] = [o for o in values.objects if isinstance(o, RunnerPool)]
    assert pool.pod.escapes == ["template.spec.hostPID with template.spec.containers[0].securityContext.capabilities"
                                ".add[0] (SYS_PTRACE, container runner): traces the node's processes, its root file "
                                "system through /proc/1/root"]
    legacy = parse("apiVersion: actions.summerwind.dev/v1alpha1\nkind: RunnerDeployment\nmetadata: {name: r}\n"
                   "spec:\n  template:\n    spec:\n      repository: acme/app\n      hostNetwork: true\n", "rd.yaml")
    [pool] = legacy.objects
    assert pool.pod.escapes == ["docker sidecar (privileged; dockerEnabled is not false)"]
    assert pool.pod.weak_escapes == [f"{T}.hostNetwork: the node's network namespace: services on its loopback, its "
                                     f"network identity (cloud metadata credentials)"]


def test_corpus_pods_have_no_host_namespace_or_capability():
    """ARC's own manifests and values (read in place): none sets a host namespace, capability, procMount or
    hostProcess, so their reasons are the hostPath and docker sidecar ones alone, and no problem."""
    require(CORPUS.is_dir(), f"corpus not present at {CORPUS}", corpus=True)
    result = build_graph({"k8s": [CORPUS]})
    assert result.problems == []
    pods = {n.name: n.pods.escapes for n in result.graph.nodes() if getattr(n, "pods", None) is not None}
    assert pods == {
        "values_k8s_extra_role_rules": ["hostPath /data (a host folder: shared with the node and its other pods, not "
                                        "the node)"],
        "summerwind-actions-runner-controller": ["docker sidecar (privileged; dockerEnabled is not false)"],
    }
