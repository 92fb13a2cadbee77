"""An org-scale input for the report test: the corpus workflows plus a made-up inventory of 25 runners.

The workflows are the unmodified public files of ``shared/corpus/github-actions`` (never copied: read in
place), with the AWS IAM files of ``shared/corpus/aws-iam``.  The inventory is generated here (every name, id and
fingerprint is fake): 25 runners with the self-hosted labels the pytorch and grafana workflows ask for, on six
long-lived hosts shared by several registrations (so caches and on-disk credentials connect them), and a host
snapshot (the format ``graphkit collect host`` writes) of one host holding two registrations no inventory lists
(rogue "runner on runner" registrations, one to another organization).
"""

from __future__ import annotations

import json
from pathlib import Path

from graphkit.build import BuildResult, build_graph
from graphkit.model import NodeKind

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

#: self-hosted labels of the corpus workflows (pytorch/ao, pytorch/test-infra, grafana/shared-workflows)
_PT_LABELS = ["linux.2xlarge", "linux.4xlarge", "linux.large", "linux.12xlarge", "linux.g5.12xlarge.nvidia.gpu",
              "mt-l-x86iamx-8-16", "macos-m1-stable", "linux.g6.4xlarge.experimental.nvidia.gpu",
              "linux.idc.xpu", "linux.rocm.gpu.ecosystem.mi350.1", "mt-l-x86iamx-22-225-h100"]
_HOSTS = [f"pt-build-{i:02d}" for i in range(1, 6)] + ["gf-build-01"]


def _inventory() -> str:
    runners = []
    for i in range(21):  # pytorch: 21 runners, labels round-robin, on five hosts (every third one ephemeral)
        label = _PT_LABELS[i % len(_PT_LABELS)]
        eph = i % 3 == 2
        host = "" if eph else f", host: {_HOSTS[i % 5]}"
        runners.append(f"  - {{name: pt-{i:02d}, labels: [self-hosted, Linux, {label}], scope: pytorch, "
                       f"runner_group: {'gpu' if 'gpu' in label else 'Default'}, ephemeral: {str(eph).lower()}{host}}}")
    for i in range(2):
        runners.append(f"  - {{name: gf-{i:02d}, labels: [self-hosted, ubuntu-x64-small], scope: grafana, "
                       f"runner_group: Default, ephemeral: false, host: gf-build-01}}")
    hosts = []
    for n, h in enumerate(_HOSTS):
        hosts.append(f"""  - name: {h}
    os: linux
    ephemeral: false
    credentials:
      - credential_type: aws
        path: /home/runner/.aws/credentials
        fingerprint: "{n:02d}b2c3d4e5f60718"
        grants:
          - {{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::308535385114:role/ossci-runner"}}
    caches:
      - {{path: /opt/hostedtoolcache, kind: toolcache}}
      - {{path: /home/runner/.cache/pip, kind: package}}""")
    return f"""schema: graphkit.runner-inventory/v1
organizations:
  - name: pytorch
    secrets_complete: false
    secrets:
      - {{name: HUD_API_TOKEN, visibility: all}}
    runner_groups:
      - {{name: Default, visibility: all, allows_public_repositories: true}}
      - {{name: gpu, visibility: selected, selected_repositories: [pytorch/ao], allows_public_repositories: true}}
  - name: grafana
    runner_groups:
      - {{name: Default, visibility: all, allows_public_repositories: true}}
repositories:
  - {{full_name: pytorch/test-infra, visibility: public, default_branch: main}}
  - {{full_name: pytorch/ao, visibility: public, default_branch: main}}
  - {{full_name: grafana/shared-workflows, visibility: public, default_branch: main}}
hosts:
{chr(10).join(hosts)}
runners:
{chr(10).join(runners)}
"""


def _rogue(name: str, scope: str, agent: int, root: bool) -> dict:
    base = "/root/.svc/ar" if root else f"/opt/{name}"
    return {"name": name, "id": agent, "scope": scope, "ephemeral": False, "host": "pt-build-01",
            "platform": "github", "labels": ["self-hosted", "Linux", "linux.2xlarge"],
            "registration": {"config_path": f"{base}/.runner", "url": f"https://github.com/{scope}",
                             "server_url": "https://pipelines.actions.example.invalid/fake", "agent_id": agent,
                             "pool_id": 1, "work_folder": f"{base}/_work",
                             "service": f"actions.runner.{scope}.{name}.service", "user": "root" if root else "runner",
                             "runs_as_root": root, "credential_path": f"{base}/.credentials",
                             "credential_fingerprint": f"{agent:016x}"}}


def _host_snapshot() -> dict:
    return {"schema": "graphkit.runner-inventory/v1",
            "hosts": [{"name": "pt-build-01", "os": "linux", "credentials": [], "caches": []}],
            "runners": [_rogue("pt-build-01-x", "evil-corp", 9007, True), _rogue("pt-shadow", "pytorch", 9008, False)]}


def scale_sources(result: BuildResult) -> list[str]:
    """The 25 runner registrations (23 listed, 2 rogue) of the graph: the report's sources."""
    return sorted(n.id for n in result.graph.nodes(NodeKind.RUNNER) if not n.id.startswith("runner:inferred:"))


def build_scale(tmp: Path) -> BuildResult:
    """The graph: corpus workflows and IAM files, the generated inventory, the host snapshot."""
    inv, snap = tmp / "inventory.yaml", tmp / "pt-build-01.json"
    inv.write_text(_inventory())
    snap.write_text(json.dumps(_host_snapshot(), indent=1))
    return build_graph({"github-actions": [CORPUS / "github-actions"], "aws-iam": [CORPUS / "aws-iam"],
                        "runners": [inv, snap]})
