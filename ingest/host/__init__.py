"""Host collector: what persists on a build host (``graphkit collect host``).

Scans a host's filesystem, read-only, from a root directory (``/`` on a live
host, a fake root in tests) and writes what it finds as the **host section**
of the runner inventory format ``graphkit.runner-inventory/v1``
(:mod:`ingest.runner_inventory`), so that ``graphkit build --runners host.json
--runners org-inventory.yaml`` joins it with the organization's inventory (the
same runner in both becomes one node: ids are ``runner:{scope}/{name}``).

What it reads (``shared/docs/semantics.md`` §2 and §7):

- **Where runners hide**: one bounded walk of the whole root
  (:mod:`ingest.host.search`, :class:`ScanLimits`) finds every folder holding
  a ``.runner``, every ``config.toml`` with ``[[runners]]``, and runner
  binaries or credentials without a registration; every folder not entered
  is reported with its reason in the host's ``scan`` report, which also says
  who ran the scan and what it could not read.
- **How each stays alive** (:mod:`ingest.host.persistence`,
  :mod:`ingest.host.keepalive`): systemd units (system and user), crontabs,
  profiles, ``rc.local``, launchd plists, Windows services, job hook scripts,
  the session of a live process (:mod:`ingest.host.procs`, ``/proc`` under the
  root); job hooks (``ACTIONS_RUNNER_HOOK_JOB_STARTED``) and a modified
  ``runsvc.sh``.
- **GitHub runner installations**: every folder holding a ``.runner`` file.
  ``.runner`` is the JSON
  that actions/runner's ``ConfigurationStore`` writes (``RunnerSettings``:
  ``agentId``, ``agentName``, ``poolId``, ``poolName``, ``serverUrl``,
  ``gitHubUrl``, ``workFolder``, ``ephemeral``; default values are omitted, so
  a missing ``ephemeral`` means false), see
  https://github.com/actions/runner/blob/main/src/Runner.Common/ConfigurationStore.cs.
  ``.credentials`` / ``.credentials_rsaparams`` (the registration's OAuth
  client credentials) are recorded as one registration credential: presence
  and fingerprint only.  The service unit (``actions.runner.<scope>.<name>.service``
  in systemd, ``actions.runner.*.plist`` in launchd) gives the account the
  runner runs as.
- **GitLab runners**: ``config.toml`` with ``[[runners]]``, wherever it is
  (``/etc/gitlab-runner`` as root, ``~/.gitlab-runner`` per user), one registration per
  ``[[runners]]`` table: ``name``, ``url``, ``executor``, ``token``
  (fingerprint only), ``[runners.docker]`` ``volumes`` (the docker socket) and
  ``privileged``; see https://docs.gitlab.com/runner/configuration/advanced-configuration/.
- **Credentials on disk** in every user home: ``~/.aws/credentials`` and
  ``config``, ``~/.docker/config.json``, ``~/.kube/config``, ``~/.npmrc``,
  ``~/.pypirc``, ``~/.config/gh/hosts.yml``, ``~/.git-credentials``, ``~/.ssh``
  private keys, GnuPG secret keyrings, ``cosign.key``: kind, path,
  fingerprint, what it grants when the file says so (profile, role ARN,
  registry host, cluster server, package index), and which runners' users can
  read it (``readable_by``: same user, root, or world-readable; a runner
  whose user is unknown is counted as a reader, the worst case).
- **Shared state**: tool caches, ``_work`` folders, the docker socket and
  package caches, as host caches every runner on the host shares.

Secret values are never printed, logged, stored or kept beyond hashing: a file
is read as bytes, its fingerprint computed (:func:`fingerprint`), and only
non-secret facts parsed from it are kept; error messages name the file and a
line, never its content.

Structure: :mod:`ingest.host.scan` (:class:`HostScan`, the only I/O: it
never writes, never executes, never follows a link out of the root, never
opens a FIFO or device, skips files over :data:`MAX_FILE_BYTES`);
:mod:`ingest.host.runners`, :mod:`ingest.host.keepalive` and
:mod:`ingest.host.credentials` (the ``parse_*`` functions, pure: text or bytes
in, facts out); :mod:`ingest.host.fingerprint` (:func:`fingerprint`);
:mod:`ingest.host.search`, :mod:`ingest.host.registrations`,
:mod:`ingest.host.persistence`, :mod:`ingest.host.procs` (the steps);
:mod:`ingest.host.found` (what the steps found, :func:`~ingest.host.found.guarded`
around every parse); :mod:`ingest.host.collect` (:func:`collect_host` joins
them into the inventory document, one step per part; :data:`COLLECTOR`).  Node ids in the
document (credential grants such as ``cloud_role:aws:...``,
``target:registry:...``, ``signing_key:gpg:...``) are built by
:mod:`graphkit.model.ids`.

Host section format (what :func:`collect_host` returns)::

    schema: graphkit.runner-inventory/v1
    hosts:
      - name: build-01                      # --hostname, else etc/hostname
        os: linux                           # linux | macos | windows | null
        credentials:
          - {credential_type: aws, path: /home/runner/.aws/credentials, fingerprint: "9c1f...",
             lifetime: until_rotated, access: ["profile:default"],
             grants: [{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::111122223333:role/ci"}],
             readable_by: [acme/build-01-a, evil/x]}
          - {credential_type: runner, path: /opt/actions-runner/.credentials, fingerprint: "...",
             lifetime: until_runner_removed, access: ["registration:acme/build-01-a"], readable_by: [...]}
        caches: [{path: /opt/hostedtoolcache, kind: toolcache}, {path: /var/run/docker.sock, kind: docker-socket},
                 {path: /opt/hooks/pre.sh, kind: job-hook, read_by: [acme/build-01-a], written_by: [acme/build-01-a]}]
        scan: {user: root, uid: 0, limits: {...}, entries: 183022, skip_counts: {pseudo filesystem: 2},
               skipped: [{path: /proc, reason: pseudo filesystem}], unreadable: [], processes: [...],
               installs_without_registration: []}
    runners:
      - name: build-01-a
        id: 101                             # agentId
        scope: acme                         # from gitHubUrl: org, or org/repo
        runner_group: Default               # poolName (org runners)
        ephemeral: false
        host: build-01
        platform: github
        registration: {config_path: /opt/actions-runner/.runner, url: "https://github.com/acme",
                       server_url: "...", agent_id: 101, pool_id: 1, work_folder: /opt/actions-runner/_work,
                       service: actions.runner.acme.build-01-a.service, user: runner, runs_as_root: false,
                       credential_path: /opt/actions-runner/.credentials, credential_fingerprint: "...",
                       kept_alive_by: ["systemd /etc/systemd/system/actions.runner.acme.build-01-a.service"],
                       unsupervised: false, job_hooks: ["ACTIONS_RUNNER_HOOK_JOB_STARTED=/opt/hooks/pre.sh"],
                       runsvc_modified: false}

Labels are not on disk (they live server-side): a host-scanned runner has
none until the org inventory supplies them.
"""

from __future__ import annotations

from ingest.host.collect import COLLECTOR, HostCollector, collect_host
from ingest.host.credentials import (CredentialFacts, is_private_key, parse_aws_config, parse_aws_credentials,
                                     parse_docker_config, parse_gh_hosts, parse_git_credentials, parse_kube_config,
                                     parse_npmrc, parse_pypirc)
from ingest.host.fingerprint import FINGERPRINT_HEX, FINGERPRINT_KEY, fingerprint
from ingest.host.runners import (GitLabRunner, RunnerFile, ServiceUnit, parse_gitlab_config, parse_launchd_plist,
                                 parse_runner_file, parse_service_unit, scope_from_url)
from ingest.host.scan import MAX_FILE_BYTES, HostScan, ScanLimits

__all__ = ["COLLECTOR", "FINGERPRINT_HEX", "FINGERPRINT_KEY", "MAX_FILE_BYTES", "CredentialFacts", "GitLabRunner",
           "HostCollector", "HostScan", "ScanLimits", "RunnerFile", "ServiceUnit", "collect_host", "fingerprint", "is_private_key",
           "parse_aws_config", "parse_aws_credentials", "parse_docker_config", "parse_gh_hosts",
           "parse_git_credentials", "parse_gitlab_config", "parse_kube_config", "parse_launchd_plist", "parse_npmrc",
           "parse_pypirc", "parse_runner_file", "parse_service_unit", "scope_from_url"]
