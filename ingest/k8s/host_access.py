"""Host namespaces and security contexts of a PodSpec (pure): whether a process in the pod controls its node.

Read from the Kubernetes PodSpec (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec,
``securityContext``: https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#security-context)
for the controls of the Pod Security Standards' baseline profile that keep a pod off its node
(https://kubernetes.io/docs/concepts/security/pod-security-standards/, "Baseline"): "HostProcess", "Host
Namespaces", "Privileged Containers", "Capabilities" and "/proc Mount Type", in every container group the profile
restricts (``containers``, ``initContainers``, ``ephemeralContainers``).  ``hostPath`` volumes: :mod:`ingest.k8s.pods`.

What takes the node for certain (``escapes``), and why:

- a privileged container (``securityContext.privileged: true``): "Processes in privileged containers are
  essentially equivalent to root on the host" (API reference, ``SecurityContext.privileged``); the runtime gives it
  every capability and every device of the node, without its seccomp and LSM profiles;
- a Windows HostProcess pod or container (``securityContext.windowsOptions.hostProcess: true``, pod or container):
  "HostProcess containers ... enables privileged access to the Windows host machine" (Pod Security Standards,
  "HostProcess"; "Create a Windows HostProcess Pod",
  https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/: it runs as a process of the node,
  on the node's network and file system);
- ``spec.hostPID: true`` with a container that adds ``SYS_PTRACE`` (or ``ALL``): the node's processes are in the
  container's PID namespace, and CAP_SYS_PTRACE passes the kernel's ptrace access check for a process holding
  capabilities the caller lacks, the node's PID 1 included (ptrace(2), "Ptrace access mode checking",
  https://man7.org/linux/man-pages/man2/ptrace.2.html); ``/proc/PID/root`` and ``/proc/PID/ns/*`` are governed by
  that check (proc(5), https://man7.org/linux/man-pages/man5/proc.5.html), so ``/proc/1/root`` is the node's root
  file system and ``/proc/1/ns/mnt`` its mount namespace.  As for a ``hostPath`` of a node path, what the node may
  enforce beyond the pod spec (an AppArmor or SELinux profile, a non-root ``runAsUser``) is not read.

What only makes it ``possible`` (``weak``), and why:

- ``spec.hostPID`` alone: the node's processes are visible (their command lines) and may be signalled; without
  CAP_SYS_PTRACE the ptrace access check refuses every process with capabilities the container lacks (PID 1, the
  kubelet, the runtime), but not other pods' root processes with the default set: their environment and files
  (``/proc/PID/environ``, ``/proc/PID/root``), the node's other pods rather than the node.  ``hostPID`` with
  ``SYS_ADMIN`` but not ``SYS_PTRACE`` stays here for that reason (``setns`` into PID 1's namespaces needs
  ``/proc/1/ns/*``, behind the same check);
- ``spec.hostIPC``: the node's System V IPC objects and POSIX message queues (ipc_namespaces(7),
  https://man7.org/linux/man-pages/man7/ipc_namespaces.7.html): data of the node's processes, not the node;
- ``spec.hostNetwork``: the node's network namespace: services listening on the node's loopback, and the node's
  network identity, e.g. its cloud's instance metadata service with the node's credentials (eksctl
  ``disablePodIMDS`` blocks "all non host networking pods", https://docs.aws.amazon.com/eks/latest/eksctl/security.html);
- a capability added beyond the baseline's default set (:data:`BASELINE_CAPABILITIES`): "known privilege
  escalations" the profile forbids (``SYS_ADMIN``, ``SYS_MODULE``, ``DAC_READ_SEARCH``, ``NET_ADMIN``, ``BPF``...,
  capabilities(7), https://man7.org/linux/man-pages/man7/capabilities.7.html): whether one leads out depends on
  the node (its kernel, cgroup version, seccomp and LSM profiles);
- ``procMount`` other than ``Default`` (``Unmasked``): /proc without the runtime's masked and read-only paths;
- a field of the wrong type (``hostPID: "yes"``, a list where a mapping is expected): a problem naming its place
  (:meth:`ingest.k8s.read.Reader.note`, the object is kept) and, the value not being known, ``possible``.

Every reason starts with the YAML path of the field (``spec.hostPID``,
``spec.containers[1].securityContext.capabilities.add[0]``) and names the container.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ingest._yaml import type_name
from ingest.k8s.read import Reader

__all__ = ["BASELINE_CAPABILITIES", "CONTAINER_GROUPS", "LINUX_CAPABILITIES", "HostAccess", "host_access"]

#: the container groups of a PodSpec; the baseline profile restricts all three
CONTAINER_GROUPS = ("initContainers", "containers", "ephemeralContainers")
#: Pod Security Standards, baseline "Capabilities": "Adding additional capabilities beyond those listed below must
#: be disallowed" (allowed values of ``capabilities.add``), https://kubernetes.io/docs/concepts/security/pod-security-standards/
BASELINE_CAPABILITIES = frozenset({"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                                   "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"})
#: what some capabilities beyond the baseline set let a root process do (capabilities(7)); others: the default text
_CAPABILITY_WHY = {
    "ALL": "every capability",
    "SYS_ADMIN": "mount and the many other operations capabilities(7) calls overloaded",
    "SYS_PTRACE": "traces the pod's processes; with spec.hostPID, the node's",
    "SYS_MODULE": "loads modules into the node's kernel unless a seccomp or LSM profile refuses",
    "DAC_READ_SEARCH": "open_by_handle_at(2): files of a node file system mounted into the container",
    "NET_ADMIN": "configures the pod's network; with spec.hostNetwork, the node's firewall and routes",
    "BPF": "loads eBPF programs into the node's kernel",
    "SYS_RAWIO": "raw I/O on the node's devices and memory",
    "SYS_BOOT": "reboots the node or loads a new kernel (kexec_load)",
    "MAC_ADMIN": "changes the node's LSM policy",
    "MAC_OVERRIDE": "overrides the node's LSM policy",
}
#: what a host namespace shares with the node (module docstring)
_NAMESPACE_WHY = {
    "hostPID": "the node's process namespace: sees the node's processes, reads other pods' environment and files",
    "hostIPC": "the node's IPC namespace: shared memory and message queues of the node's processes",
    "hostNetwork": "the node's network namespace: services on its loopback, its network identity (cloud metadata "
                   "credentials)",
}
#: the Linux capabilities (capabilities(7), https://man7.org/linux/man-pages/man7/capabilities.7.html) and ``ALL``:
#: a reason shows an added name only when it is one of these (anything else could be any text, a credential too)
LINUX_CAPABILITIES = frozenset({
    "ALL", "AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE", "CHOWN",
    "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE", "LINUX_IMMUTABLE",
    "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_RAW", "PERFMON",
    "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT", "SYS_MODULE", "SYS_NICE",
    "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "SYSLOG", "WAKE_ALARM"})


@dataclass
class HostAccess:
    """Why a process in the pod controls its node (``certain``) or may (``weak``)."""

    r: Reader
    certain: list[str] = field(default_factory=list)
    weak: list[str] = field(default_factory=list)

    def unknown(self, path: str, value: Any, expected: str, what: str) -> None:
        """A field of the wrong type: a problem at ``path`` and a ``possible`` reason (never the value)."""
        found = type_name(value)
        reason = f"expected {expected}, found {'an' if found[:1] in 'aeiou' else 'a'} {found}"
        self.r.note(path, reason)
        self.weak.append(f"{self.r.full(path)}: could not be read ({reason}): {what}")

    def flag(self, value: Any, path: str, what: str) -> bool:
        """A boolean field: True only when it is ``true``; absent or false: False; anything else :meth:`unknown`."""
        if value is True:
            return True
        if value is not None and value is not False:
            self.unknown(path, value, "true or false", what)
        return False

    def mapping(self, value: Any, path: str, what: str) -> dict[str, Any]:
        """A mapping field (``{}`` when absent); anything else :meth:`unknown` and ``{}``."""
        if value is None or isinstance(value, dict):
            return value or {}
        self.unknown(path, value, "a mapping", what)
        return {}


def _capabilities(acc: HostAccess, sc: dict[str, Any], at: str, name: str) -> list[tuple[str, str]]:
    """``(capability, path)`` of each capability ``securityContext.capabilities.add`` adds beyond the baseline set,
    normalised (upper case, no ``CAP_`` prefix, as the runtimes read it)."""
    caps = acc.mapping(sc.get("capabilities"), f"{at}.capabilities", f"capabilities of container {name} not known")
    add = caps.get("add")
    if add is None:
        return []
    if not isinstance(add, list):
        acc.unknown(f"{at}.capabilities.add", add, "a sequence", f"capabilities added to container {name} not known")
        return []
    out = []
    for j, cap in enumerate(add):
        path = f"{at}.capabilities.add[{j}]"
        if not isinstance(cap, str):
            acc.unknown(path, cap, "a string", f"a capability added to container {name} not known")
            continue
        norm = cap.strip().upper().removeprefix("CAP_")
        if norm in BASELINE_CAPABILITIES:
            continue
        if norm in LINUX_CAPABILITIES:
            label, why = norm, _CAPABILITY_WHY.get(norm, "beyond the baseline set, a known privilege escalation")
        else:
            label, why = "not known", "not a Linux capability name: the runtime may refuse it or read it otherwise"
        acc.weak.append(f"{acc.r.full(path)}: capability {label} added to container {name} ({why})")
        out.append((norm, path))
    return out


def _container(acc: HostAccess, c: dict[str, Any], at: str, name: str, host_pid: tuple[bool, str]) -> None:
    """One container's ``securityContext`` (``at``: the container's path)."""
    sc_at = f"{at}.securityContext"
    sc = acc.mapping(c.get("securityContext"), sc_at, f"privileged, capabilities, procMount and hostProcess of "
                                                      f"container {name} not known")
    if acc.flag(sc.get("privileged"), f"{sc_at}.privileged", f"container {name} may be privileged"):
        acc.certain.append(f"{acc.r.full(sc_at + '.privileged')}: privileged container {name}")
    win = acc.mapping(sc.get("windowsOptions"), f"{sc_at}.windowsOptions", f"hostProcess of container {name} not known")
    if acc.flag(win.get("hostProcess"), f"{sc_at}.windowsOptions.hostProcess",
                f"container {name} may be a Windows HostProcess container"):
        acc.certain.append(f"{acc.r.full(sc_at + '.windowsOptions.hostProcess')}: Windows HostProcess container {name} "
                           f"(a process of the node)")
    proc = sc.get("procMount")
    if isinstance(proc, str) and proc != "Default":
        shown = "Unmasked" if proc == "Unmasked" else "a value other than Default"
        acc.weak.append(f"{acc.r.full(sc_at + '.procMount')}: procMount {shown} in container {name} (/proc without the "
                        f"runtime's masked paths)")
    elif proc is not None and not isinstance(proc, str):
        acc.unknown(f"{sc_at}.procMount", proc, "a string", f"/proc of container {name} may be unmasked")
    for cap, path in _capabilities(acc, sc, sc_at, name):
        if host_pid[0] and cap in ("SYS_PTRACE", "ALL"):
            acc.certain.append(f"{acc.r.full(host_pid[1])} with {acc.r.full(path)} ({cap}, container {name}): traces "
                               f"the node's processes, its root file system through /proc/1/root")


def host_access(r: Reader, spec: dict[str, Any], path: str) -> HostAccess:
    """The reasons a process in the PodSpec ``spec`` at ``path`` controls its node or may (module docstring).

    A field of the wrong type is a note on ``r`` (a problem naming its place) and a ``possible`` reason; a container
    that is not a mapping raises :class:`~ingest.k8s.read.Bad` (the object is left out), as
    :func:`ingest.k8s.pods.pod_template` does.
    """
    acc = HostAccess(r)
    flags = {}
    for key, why in _NAMESPACE_WHY.items():
        flags[key] = acc.flag(spec.get(key), f"{path}.{key}", f"may share {why.split(':', 1)[0]}")
        if flags[key]:
            acc.weak.append(f"{r.full(f'{path}.{key}')}: {why}")
    psc = acc.mapping(spec.get("securityContext"), f"{path}.securityContext", "Windows hostProcess of the pod not known")
    win = acc.mapping(psc.get("windowsOptions"), f"{path}.securityContext.windowsOptions",
                      "Windows hostProcess of the pod not known")
    if acc.flag(win.get("hostProcess"), f"{path}.securityContext.windowsOptions.hostProcess",
                "the pod may be a Windows HostProcess pod"):
        acc.certain.append(f"{r.full(path + '.securityContext.windowsOptions.hostProcess')}: Windows HostProcess pod "
                           f"(its containers are processes of the node)")
    for group in CONTAINER_GROUPS:
        for i, c in enumerate(r.seq(spec.get(group), f"{path}.{group}")):
            at = f"{path}.{group}[{i}]"
            c = r.mapping(c, at)
            name = r.text(c.get("name"), f"{at}.name") or f"#{i}"
            _container(acc, c, at, name, (flags["hostPID"], f"{path}.hostPID"))
    return acc
