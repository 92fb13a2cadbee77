"""Find runner registrations anywhere under the root by their signatures (not only in the usual folders).

An attacker who installs a second runner hides it (a dot-folder in a home,
``/tmp``, ``/dev/shm``, deep under ``/var/lib``): the search walks the whole
root once (:meth:`~ingest.host.scan.HostScan.search`, bounded in entries,
depth and time, every folder not entered reported) and recognises:

- a GitHub runner registration: a folder holding ``.runner`` (the JSON
  actions/runner's ``ConfigurationStore`` writes: ``agentId``, ``serverUrl``...,
  https://github.com/actions/runner/blob/main/src/Runner.Common/ConfigurationStore.cs);
- a GitHub runner installation without a registration file (configured
  then cleaned, or about to be): ``.credentials`` / ``.credentials_rsaparams``
  without ``.runner``, or a ``bin/`` folder holding ``Runner.Listener`` /
  ``Runner.Worker`` (the runner's binaries, beside ``config.sh`` / ``run.sh``);
- a GitLab runner configuration: a ``config.toml`` with a ``[[runners]]``
  table (https://docs.gitlab.com/runner/configuration/advanced-configuration/).

The same walk notes every ``cosign.key`` (a signing key on disk) for the
credential step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ingest.host.scan import HostScan

__all__ = ["RUNNER_BINARIES", "Signatures", "find_signatures"]

#: The runner's binaries in its ``bin/`` folder (Linux/macOS and Windows names).
RUNNER_BINARIES = frozenset({"Runner.Listener", "Runner.Worker", "Runner.Listener.exe", "Runner.Worker.exe"})
_CREDENTIALS = frozenset({".credentials", ".credentials_rsaparams"})


@dataclass
class Signatures:
    """Where the search found runners: registration folders, GitLab configurations, installations without a
    ``.runner`` (each list in search order, without repeats)."""

    runner_dirs: list[str] = field(default_factory=list)
    gitlab_configs: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    #: ``cosign.key`` files (signing keys on disk, recorded by the credential step)
    cosign_keys: list[str] = field(default_factory=list)


def _join(d: str, name: str) -> str:
    return f"{d.rstrip('/')}/{name}"


def _is_gitlab_config(scan: HostScan, path: str) -> bool:
    """A ``config.toml`` that holds a ``[[runners]]`` table (the bytes are looked at, never kept)."""
    data = scan.read(path)
    found = data is not None and b"[[runners]]" in data
    del data
    return found


def find_signatures(scan: HostScan, top: str = "/") -> Signatures:
    """Search ``top`` (default the whole root) for runner signatures.

    Returns
    -------
    Signatures
        folders with ``.runner``; GitLab ``config.toml`` files with
        ``[[runners]]``; folders with runner binaries or credentials but no
        ``.runner``.  Folders not entered are in ``scan.skipped`` (and a limit
        reached is a problem).
    """
    sigs = Signatures()
    installs: list[str] = []
    for d, _dirs, files in scan.search(top):
        names = set(files)
        if ".runner" in names:
            sigs.runner_dirs.append(d)
        elif names & _CREDENTIALS:
            installs.append(d)
        if PurePosixPath(d).name == "bin" and names & RUNNER_BINARIES:
            installs.append(str(PurePosixPath(d).parent))
        if "cosign.key" in names:
            sigs.cosign_keys.append(_join(d, "cosign.key"))
        if "config.toml" in names and _is_gitlab_config(scan, _join(d, "config.toml")):
            sigs.gitlab_configs.append(_join(d, "config.toml"))
    sigs.orphans = [d for d in dict.fromkeys(installs) if d not in sigs.runner_dirs]
    return sigs
