"""A deterministic synthetic organization, written in graphkit's own input formats (for benchmarks and scale tests).

``graphkit synth --repos N [--runners M] [--seed S] -o DIR`` writes::

    DIR/repos/<org>__<repo>/.github/workflows/*.yml   (checkouts layout: ingest/github_actions/collect.py)
    DIR/inventory.yaml                                 (graphkit.runner-inventory/v1: ingest/runner_inventory)
    DIR/aws-iam.json                                   (``aws iam get-account-authorization-details``: ingest/aws_iam)

The same ``(repos, runners, seed)`` gives byte-identical files.  The shape follows a real organization (the
bundled ``examples/acme`` scaled up):

* teams of ten repositories; a ``synth/workflows`` repository of reusable workflows (``on: workflow_call``,
  https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows) that a third of the repositories
  call with ``secrets: inherit``;
* runner groups shared by several repositories, one group for every repository, and a ``release`` group
  restricted to the release workflows
  (https://docs.github.com/en/actions/how-tos/manage-runners/self-hosted-runners/manage-access);
* persistent runners two or three to a long-lived host (with cloud, registry and runner credentials and caches on
  disk; one host in twenty holds an ``admin:org`` token) and ephemeral runners, each on its own throw-away host
  (https://docs.github.com/en/actions/reference/runners/self-hosted-runners#ephemeral-runners-for-autoscaling);
* organization secrets (``all``, ``private``, ``selected``), repository secrets and ``production`` environment
  secrets (https://docs.github.com/en/actions/reference/security/secrets);
* per team an OIDC deployer role trusting the team's ``production`` environments (narrow) or, one team in seven,
  ``repo:synth/*`` (broad), a release role trusting every ``main`` push of the team's repositories, an admin role
  reached by role chaining (``sts:AssumeRole``), with cycles deployer -> admin -> deployer and admin rings of
  three teams (https://docs.github.com/en/actions/how-tos/secure-your-work/security-harden-deployments/oidc-in-aws,
  https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining);
* KMS signing keys, EKS clusters, Lambda functions, S3 buckets and container registries as deployment targets.

Sizes (built edges, this version, default runner count): about ``18.7 * repos ** 1.28`` (runners and shared groups
grow with the org; ``benchmarks/run.py`` inverts it), i.e. ``--repos 135`` ~ 10^4, ``--repos 800`` ~ 10^5,
``--repos 5000`` ~ 10^6 (``graphkit synth --build`` prints the built size).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from graphkit.model import ids

__all__ = ["ORG", "ACCOUNT", "SynthOrg", "generate", "write"]

#: The synthetic organization and AWS account (fake).
ORG = "synth"
ACCOUNT = "210987654321"
TEAM = 10  # repositories per team
_ARN = f"arn:aws:iam::{ACCOUNT}"
_PROVIDER = f"{_ARN}:oidc-provider/token.actions.githubusercontent.com"
_AUD = "token.actions.githubusercontent.com:aud"
_SUB = "token.actions.githubusercontent.com:sub"
_REGION = "eu-west-1"
_DATE = "2025-01-01T00:00:00Z"


@dataclass
class SynthOrg:
    """The generated files: relative path -> text (in a deterministic order)."""

    files: dict[str, str] = field(default_factory=dict)
    repos: int = 0
    runners: int = 0
    hosts: int = 0

    def workflow_files(self) -> list[str]:
        """Relative paths of the workflow files, sorted."""
        return sorted(p for p in self.files if p.endswith(".yml") and "/.github/workflows/" in p)


def _repo(i: int) -> str:
    return f"svc-{i:05d}"


def _full(i: int) -> str:
    return f"{ORG}/{_repo(i)}"


def _sub(repository: str, context: str) -> str:
    from graphkit import oidc  # the sub claim form lives there (repo:OWNER/REPO:CONTEXT)
    return oidc.subject(repository, context)


def _groups(n_repos: int) -> int:
    """Number of shared runner groups: one per forty repositories, at least two."""
    return max(2, -(-n_repos // 40))


# --------------------------------------------------------------------------- workflows

_CI = """\
name: ci
on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make lint

  test:
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    runs-on: [self-hosted, linux, {label}]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{{{ matrix.python }}}}
      - uses: actions/cache@v4
        with:
          path: ~/.cache/pip
          key: pip-${{{{ runner.os }}}}-${{{{ hashFiles('requirements*.txt') }}}}
      - run: make test
      - name: Upload coverage
        run: codecov --token "$CODECOV_TOKEN"
        env:
          CODECOV_TOKEN: ${{{{ secrets.CODECOV_TOKEN }}}}
          NOTIFY_URL: ${{{{ secrets.{org_secret} }}}}
"""

_RELEASE = """\
name: release
on:
  push:
    branches: [main]
    paths: [VERSION]
  workflow_dispatch:

permissions:
  contents: write
  id-token: write
  packages: write

jobs:
  publish:
    runs-on: [self-hosted, linux, release]
    environment: production
    steps:
      - uses: actions/checkout@v4
      - run: make dist
      - name: Assume the release role
        uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: {release_role}
          aws-region: {region}
      - run: aws s3 cp dist/ s3://{bucket}/{repo}/ --recursive
      - uses: sigstore/cosign-installer@v3
      - name: Sign the container image
        run: cosign sign --yes --key env://COSIGN_PRIVATE_KEY ghcr.io/{org}/{repo}:${{{{ github.ref_name }}}}
        env:
          COSIGN_PRIVATE_KEY: ${{{{ secrets.COSIGN_PRIVATE_KEY }}}}
      - name: Publish to PyPI
        uses: pypa/gh-action-pypi-publish@release/v1
        with:
          password: ${{{{ secrets.PYPI_API_TOKEN }}}}
"""

_DEPLOY = """\
name: deploy
on:
  push:
    branches: [main]

permissions:
  contents: read
  id-token: write

jobs:
  deploy:
    uses: {org}/workflows/.github/workflows/deploy.yml@main
    with:
      role: {deploy_role}
      cluster: {cluster}
      runner: {label}
    secrets: inherit
"""

_REUSABLE_DEPLOY = """\
name: deploy (reusable)
on:
  workflow_call:
    inputs:
      role:
        type: string
        required: true
      cluster:
        type: string
        required: true
      runner:
        type: string
        default: shared-all

jobs:
  deploy:
    runs-on: [self-hosted, linux, "${{ inputs.runner }}"]
    environment: production
    steps:
      - uses: actions/checkout@v4
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: ${{ inputs.role }}
          aws-region: eu-west-1
      - name: Deploy
        run: aws eks update-kubeconfig --name "${{ inputs.cluster }}" && kubectl apply -f k8s/
        env:
          KUBE_CONFIG: ${{ secrets.KUBE_CONFIG_PROD }}
"""

_REUSABLE_CI = """\
name: self-test
on:
  push:
    branches: [main]
  pull_request:

jobs:
  check:
    runs-on: [self-hosted, linux, shared-all]
    steps:
      - uses: actions/checkout@v4
      - run: make check
"""


def _role(name: str) -> str:
    return f"{_ARN}:role/{name}"


def _team_roles(t: int) -> tuple[str, str, str]:
    """The deployer, release and admin role names of team ``t``."""
    return f"{ORG}-t{t:04d}-deployer", f"{ORG}-t{t:04d}-release", f"{ORG}-t{t:04d}-admin"


def _workflows(n_repos: int, org_secrets: list[str]) -> dict[str, str]:
    files: dict[str, str] = {}
    groups = _groups(n_repos)
    base = f"repos/{ORG}__workflows/.github/workflows"
    files[f"{base}/deploy.yml"] = _REUSABLE_DEPLOY
    files[f"{base}/self-test.yml"] = _REUSABLE_CI
    for i in range(n_repos):
        repo, t = _repo(i), i // TEAM
        label = f"pool-{i % groups:03d}"
        deployer, release, _ = _team_roles(t)
        d = f"repos/{ORG}__{repo}/.github/workflows"
        files[f"{d}/ci.yml"] = _CI.format(label=label, org_secret=org_secrets[i % len(org_secrets)])
        if i % 5 == 0:
            files[f"{d}/release.yml"] = _RELEASE.format(release_role=_role(release), region=_REGION, org=ORG,
                                                        repo=repo, bucket=f"{ORG}-t{t:04d}-releases")
        if i % 3 == 0:
            files[f"{d}/deploy.yml"] = _DEPLOY.format(org=ORG, deploy_role=_role(deployer), label=label,
                                                      cluster=f"{ORG}-t{t:04d}-prod")
    return files


# --------------------------------------------------------------------------- runner inventory

def _q(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML flow scalar


def _org_section(n_repos: int, org_secrets: list[str], rng: random.Random) -> list[str]:
    groups = _groups(n_repos)
    lines = ["organizations:", f"  - name: {ORG}", "    id: 4242", "    secrets_complete: true", "    secrets:"]
    for k, name in enumerate(org_secrets):
        lines += [f"      - name: {name}", f"        visibility: {('all', 'private', 'selected')[k % 3]}"]
        if k % 3 == 2:
            picked = sorted(rng.sample(range(n_repos), min(3, n_repos)))
            lines.append(f"        selected_repositories: [{', '.join(_full(i) for i in picked)}]")
    lines += ["    runner_groups:", "      - name: Default", "        id: 1", "        visibility: all",
              "        allows_public_repositories: false",
              "      - name: shared-all", "        id: 2", "        visibility: all",
              "        allows_public_repositories: true"]
    for g in range(groups):
        members = [_full(i) for i in range(n_repos) if i % groups == g]
        lines += [f"      - name: pool-{g:03d}", f"        id: {10 + g}", "        visibility: selected",
                  f"        selected_repositories: [{', '.join(members)}]", "        allows_public_repositories: false"]
    releasers = [i for i in range(n_repos) if i % 5 == 0]
    lines += ["      - name: release", "        id: 3", "        visibility: selected",
              f"        selected_repositories: [{', '.join(_full(i) for i in releasers)}]",
              "        restricted_to_workflows: true", "        selected_workflows:"]
    lines += [f"          - {_full(i)}/.github/workflows/release.yml@refs/heads/main" for i in releasers]
    lines += ["    oidc_sub_template:", "      use_default: true", ""]
    return lines


def _repo_section(n_repos: int) -> list[str]:
    lines = ["repositories:", f"  - full_name: {ORG}/workflows", "    visibility: internal",
             "    default_branch: main", "    secrets: []", "    secrets_complete: true"]
    for i in range(n_repos):
        public = i % 10 == 7
        lines += [f"  - full_name: {_full(i)}", f"    visibility: {'public' if public else 'private'}",
                  "    default_branch: main"]
        if not public:  # the default for private repositories: fork pull requests run no workflows
            lines.append("    fork_pr_workflows: false")
        secrets = ["CODECOV_TOKEN", "SONAR_TOKEN"] + (["PYPI_API_TOKEN"] if i % 5 == 0 else [])
        lines += [f"    secrets: [{', '.join(secrets)}]", "    secrets_complete: true"]
        if i % 5 == 0 or i % 3 == 0:
            env = ["KUBE_CONFIG_PROD"] + (["COSIGN_PRIVATE_KEY"] if i % 5 == 0 else [])
            lines += ["    environments:", "      - name: production", f"        secrets: [{', '.join(env)}]",
                      "        secrets_complete: true", "        protection_rules:", "          - type: branch_policy",
                      "        deployment_branch_policy:", "          protected_branches: false",
                      "          custom_branch_policies: true", "          branch_policies: [{name: main}]"]
    return lines + [""]


@dataclass(frozen=True)
class _Runner:
    name: str
    group: str
    host: str
    ephemeral: bool
    rid: int


def _fleet(n_repos: int, n_runners: int) -> tuple[list[_Runner], list[tuple[str, bool, list[_Runner]]]]:
    """Runners and hosts: 60% persistent runners packed two or three to a host, the rest ephemeral (one per
    throw-away host).  Groups take runners round robin: ``shared-all``, ``release`` and the pools."""
    groups = ["shared-all", "release"] + [f"pool-{g:03d}" for g in range(_groups(n_repos))]
    runners: list[_Runner] = []
    hosts: list[tuple[str, bool, list[_Runner]]] = []
    persistent = (n_runners * 3) // 5
    k = 0
    while k < persistent:
        host = f"build-{len(hosts):05d}"
        size = min(2 + len(hosts) % 2, persistent - k)
        members = [_Runner(f"{host}-{chr(97 + j)}", groups[(k + j) % len(groups)], host, False, 1000 + k + j)
                   for j in range(size)]
        runners += members
        hosts.append((host, False, members))
        k += size
    for j in range(n_runners - persistent):
        host = f"eph-{j:05d}"
        r = _Runner(f"{host}-r", groups[(k + j) % len(groups)], host, True, 1000 + k + j)
        runners.append(r)
        hosts.append((host, True, [r]))
    return runners, hosts


def _host_lines(h: int, name: str, members: list[_Runner], n_teams: int) -> list[str]:
    t = h % max(1, n_teams)
    lines = [f"  - name: {name}", "    os: linux", "    ephemeral: false", "    credentials:",
             "      - credential_type: aws", "        path: /home/runner/.aws/credentials",
             f"        fingerprint: \"{h:08x}a1b2c3d4\"", "        lifetime: until_rotated", "        grants:",
             "          - access: assumes_role",
             f"            target: {_q(ids.cloud_role('aws', _role(f'{ORG}-ci-builder-{h % 8}')))}",
             "      - credential_type: docker", "        path: /home/runner/.docker/config.json",
             f"        fingerprint: \"{h:08x}0f1e2d3c\"", "        grants:", "          - access: publishes_to",
             f"            target: {_q(ids.target('registry', f'ghcr.io/{ORG}/t{t:04d}'))}"]
    if h % 20 == 0:
        lines += ["      - credential_type: github_pat", "        path: /etc/runner-autoscaler/env",
                  f"        fingerprint: \"{h:08x}5e6f7a8b\"", "        lifetime: until_rotated",
                  "        scopes: [admin:org, repo]", f"        github_owner: {ORG}"]
    for j, r in enumerate(members):
        lines += ["      - credential_type: runner", f"        path: /opt/actions-runner-{chr(97 + j)}/.credentials",
                  f"        fingerprint: \"{h:08x}{j:04x}99aa\"", "        lifetime: until_runner_removed",
                  f"        access: [\"registration:{ORG}/{r.name}\"]"]
    return lines + ["    caches:", "      - path: /opt/hostedtoolcache", "        kind: toolcache",
                    "      - path: /home/runner/.cache/pip", "        kind: pip"]


def _fleet_section(n_repos: int, n_runners: int) -> list[str]:
    runners, hosts = _fleet(n_repos, n_runners)
    n_teams = -(-n_repos // TEAM)
    lines = ["hosts:"]
    for h, (name, ephemeral, members) in enumerate(hosts):
        if ephemeral:
            lines += [f"  - name: {name}", "    os: linux", "    ephemeral: true"]
        else:
            lines += _host_lines(h, name, members, n_teams)
    lines += ["", "runners:"]
    for r in runners:
        lines += [f"  - name: {r.name}", f"    id: {r.rid}", f"    labels: [self-hosted, Linux, X64, {r.group}]",
                  f"    scope: {ORG}", f"    runner_group: {r.group}", f"    ephemeral: {str(r.ephemeral).lower()}",
                  f"    host: {r.host}", "    os: linux", "    status: online"]
    return lines + ["", "github_hosted_labels: []", "self_hosted_labels: []", ""]


def _inventory(n_repos: int, n_runners: int, org_secrets: list[str], rng: random.Random) -> str:
    head = ["# Synthetic runner inventory written by `graphkit synth` (graphkit.runner-inventory/v1); every id,",
            "# fingerprint and account number is fake.", "schema: graphkit.runner-inventory/v1", ""]
    body = (_org_section(n_repos, org_secrets, rng) + _repo_section(n_repos) + _fleet_section(n_repos, n_runners))
    return "\n".join(head + body)


# --------------------------------------------------------------------------- IAM export

def _statement(sid: str, action: str | list[str], resource: str, effect: str = "Allow") -> dict:
    return {"Sid": sid, "Effect": effect, "Action": action, "Resource": resource}


def _role_entry(name: str, trust: list[dict], statements: list[dict], n: int) -> dict:
    return {"Path": "/", "RoleName": name, "RoleId": f"AROASYNTH{n:012d}", "Arn": _role(name), "CreateDate": _DATE,
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": trust}, "InstanceProfileList": [],
            "RolePolicyList": [{"PolicyName": "inline", "PolicyDocument": {"Version": "2012-10-17",
                                                                            "Statement": statements}}],
            "AttachedManagedPolicies": [], "Tags": []}


def _oidc_trust(condition: dict) -> list[dict]:
    return [{"Sid": "GitHubOIDC", "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
             "Principal": {"Federated": _PROVIDER}, "Condition": condition}]


def _aws_trust(principals: list[str]) -> list[dict]:
    return [{"Sid": "Chain", "Effect": "Allow", "Action": "sts:AssumeRole",
             "Principal": {"AWS": principals if len(principals) > 1 else principals[0]}}]


def _team_role_entries(t: int, n_repos: int, n_teams: int) -> list[dict]:
    deployer, release, admin = _team_roles(t)
    members = [_full(i) for i in range(t * TEAM, min(n_repos, (t + 1) * TEAM))]
    if t % 7 == 3:  # broad: any repository of the organization, any ref
        deploy_cond = {"StringEquals": {_AUD: "sts.amazonaws.com"}, "StringLike": {_SUB: _sub(f"{ORG}/*", "*")}}
    else:
        deploy_cond = {"StringEquals": {_AUD: "sts.amazonaws.com",
                                        _SUB: [_sub(r, "environment:production") for r in members]}}
    release_cond = {"StringEquals": {_AUD: "sts.amazonaws.com"},
                    "StringLike": {_SUB: [_sub(r, "ref:refs/heads/main") for r in members]}}
    nxt, prv = _ring(t, n_teams, 1), _ring(t, n_teams, 2)  # admin roles chain in rings of three teams
    acct = f"arn:aws:{{}}:{_REGION}:{ACCOUNT}"
    return [
        _role_entry(deployer, _oidc_trust(deploy_cond) + _aws_trust([_role(admin)]), [
            _statement("DeployCluster", "eks:*", acct.format("eks") + f":cluster/{ORG}-t{t:04d}-prod"),
            _statement("DeployApi", "lambda:UpdateFunctionCode",
                       acct.format("lambda") + f":function:{ORG}-t{t:04d}-api"),
            _statement("BreakGlass", "sts:AssumeRole", _role(admin))], 3 * t),
        _role_entry(release, _oidc_trust(release_cond), [
            _statement("Sign", ["kms:Sign", "kms:GetPublicKey"], acct.format("kms") + f":key/t{t:04d}-signing"),
            _statement("Upload", "s3:PutObject", f"arn:aws:s3:::{ORG}-t{t:04d}-releases/*")], 3 * t + 1),
        _role_entry(admin, _aws_trust(sorted({_role(deployer), _role(_team_roles(prv)[2])})), [
            _statement("Chain", "sts:AssumeRole", sorted({_role(deployer), _role(_team_roles(nxt)[2])})),
            _statement("Secrets", "secretsmanager:GetSecretValue",
                       acct.format("secretsmanager") + f":secret:t{t:04d}/*")], 3 * t + 2),
    ]


def _ring(t: int, n_teams: int, step: int) -> int:
    """The team ``step`` places after ``t`` in its ring of three (rings cut short at the last team)."""
    base = 3 * (t // 3)
    size = min(3, n_teams - base)
    return base + (t - base + step) % size


def _iam(n_repos: int) -> str:
    n_teams = -(-n_repos // TEAM)
    roles = [r for t in range(n_teams) for r in _team_role_entries(t, n_repos, n_teams)]
    acct = f"arn:aws:{{}}:{_REGION}:{ACCOUNT}"
    for b in range(8):
        roles.append(_role_entry(f"{ORG}-ci-builder-{b}", _aws_trust([f"{_ARN}:root"]), [
            _statement("PushImages", ["ecr:PutImage", "ecr:UploadLayerPart"],
                       acct.format("ecr") + f":repository/{ORG}/builder-{b}"),
            _statement("ReadBuildSecrets", "secretsmanager:GetSecretValue", acct.format("secretsmanager")
                       + f":secret:ci/{b}/*"),
            _statement("NoSigning", "kms:Sign", "*", "Deny")], 10 ** 9 + b))
    doc = {"RoleDetailList": roles, "UserDetailList": [], "GroupDetailList": [], "Policies": [],
           "OpenIDConnectProviderList": [{"Arn": _PROVIDER, "Url": "token.actions.githubusercontent.com",
                                          "ClientIDList": ["sts.amazonaws.com"]}]}
    return json.dumps(doc, indent=1) + "\n"


# --------------------------------------------------------------------------- entry points

def generate(repos: int, runners: int | None = None, seed: int = 0) -> SynthOrg:
    """Generate a synthetic organization in memory.

    Parameters
    ----------
    repos
        number of repositories (>= 1); about 70 built edges each.
    runners
        number of runners (default ``max(6, repos // 3)``).
    seed
        random seed: the same arguments give identical files.

    Returns
    -------
    SynthOrg
        the files (relative path -> text) and the counts.

    Raises
    ------
    ValueError
        when ``repos`` < 1 or ``runners`` < 1.
    """
    runners = max(6, repos // 3) if runners is None else runners
    if repos < 1 or runners < 1:
        raise ValueError("--repos and --runners must be at least 1")
    rng = random.Random(seed)
    org_secrets = [f"ORG_SECRET_{k:04d}" for k in range(max(4, repos // 25))]
    rng.shuffle(org_secrets)
    files = _workflows(repos, org_secrets)
    files["inventory.yaml"] = _inventory(repos, runners, org_secrets, rng)
    files["aws-iam.json"] = _iam(repos)
    _, hosts = _fleet(repos, runners)
    return SynthOrg(files=files, repos=repos, runners=runners, hosts=len(hosts))


#: The file in which :func:`write` lists what it wrote into a folder (relative POSIX paths, JSON): a later ``graphkit
#: synth -o`` into that folder may replace them (:func:`foreign_entry`), and removes those the new org lacks.
MANIFEST = ".graphkit-synth.json"


#: The names :func:`generate` writes (relative POSIX paths): the only entries a :data:`MANIFEST` may list.
_SYNTH_NAME = re.compile(r"inventory\.yaml|aws-iam\.json|repos/[\w.-]+/\.github/workflows/[\w.-]+\.yml", re.ASCII)


class ManifestError(ValueError):
    """A :data:`MANIFEST` entry synth never writes (hostile or damaged manifest: CWE-22,
    https://cwe.mitre.org/data/definitions/22.html): ``manifest`` (path), ``entry`` (as listed, shown with
    ``repr``) and ``reason``.  Raised before anything is deleted or written."""

    def __init__(self, manifest: Path, entry: object, reason: str) -> None:
        super().__init__(f"{manifest}: entry {entry!r} {reason}: refused, nothing deleted or written")
        self.manifest, self.entry, self.reason = manifest, entry, reason


def _unsafe_place(out: Path, rel: str) -> str | None:
    """Why the file ``out/rel`` must not be deleted or written (None: it is absent or a regular file reached
    without a link): a component from ``out`` on that is a symbolic link (deleting or writing would act on what it
    points to, possibly outside ``out``), or it exists and is not a regular file (a FIFO would block, a folder
    fail).  ``lstat`` only: nothing is followed or opened."""
    path, mode = out, None
    for part in rel.split("/"):
        path = path / part
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            return None  # absent: nothing there to delete, and written as a new file
        except OSError as exc:
            return f"cannot be checked ({exc.strerror or exc})"
        if stat.S_ISLNK(mode):
            return f"passes through a link ({path.relative_to(out).as_posix()})"
    return None if mode is not None and stat.S_ISREG(mode) else "is not a regular file"


def _entry_problem(out: Path, entry: object) -> str | None:
    """Why ``entry`` of ``out``'s manifest is not a file synth could have written there (None: it is one, or is
    absent).  A listed path must be one of :data:`_SYNTH_NAME` (relative, no ``..``) and a safe place
    (:func:`_unsafe_place`)."""
    if not isinstance(entry, str):
        return "is not a path"
    parts = entry.split("/")
    if entry.startswith("/") or any(part in ("", ".", "..") for part in parts) or not _SYNTH_NAME.fullmatch(entry):
        return "is not a relative path synth writes (inventory.yaml, aws-iam.json, repos/*/.github/workflows/*.yml)"
    return _unsafe_place(out, entry)


def _listed(out: Path) -> set[str]:
    """The files a previous :func:`write` listed in ``out``'s :data:`MANIFEST` (empty: none, or unreadable).

    Raises
    ------
    ManifestError
        for the first entry (in the listed order) that is not a file synth could have written inside ``out``
        (:func:`_entry_problem`): an absolute path, one holding ``..``, one through a symbolic link.
    """
    unsafe = _unsafe_place(out, MANIFEST)  # never read through a link, never a FIFO opened
    if unsafe is not None:
        raise ManifestError(out / MANIFEST, MANIFEST, unsafe)
    try:
        names = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return set()
    if not isinstance(names, list):
        return set()
    for name in names:
        reason = _entry_problem(out, name)
        if reason is not None:
            raise ManifestError(out / MANIFEST, name, reason)
    return set(names)


def foreign_entry(out: Path) -> str | None:
    """The first entry under ``out`` (sorted; relative POSIX path) that synth did not write, or None when ``out``
    is absent, an empty folder, or holds only files a previous :func:`write` listed in its :data:`MANIFEST`.  A
    path that is not a folder is its own foreign entry (``.``).  Links are not followed.  Raises
    :class:`ManifestError` for a manifest entry synth never writes (:func:`_listed`).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> foreign_entry(d / "new"), foreign_entry(d)
    (None, None)
    >>> _ = (d / "notes.txt").write_text("mine")
    >>> foreign_entry(d)
    'notes.txt'
    """
    if not out.exists() and not out.is_symlink():
        return None
    if not out.is_dir() or out.is_symlink():
        return "."  # not a folder (or a link to one): nothing is written through it
    listed = _listed(out) | {MANIFEST}
    for folder, dirs, files in os.walk(out):
        dirs.sort()
        for name in sorted(files) + sorted(d for d in dirs if (Path(folder) / d).is_symlink()):
            rel = (Path(folder) / name).relative_to(out).as_posix()
            if rel not in listed:
                return rel
    return None


def write(org: SynthOrg, out: Path) -> list[Path]:
    """Write the files of ``org`` under ``out`` (created; existing files of the same names are replaced, and the
    files a previous write listed in :data:`MANIFEST` that ``org`` lacks are removed), then the manifest.  The
    command line first refuses a folder holding anything else (:func:`foreign_entry`) unless ``--force``.

    Returns
    -------
    list of Path
        the written files (the manifest left out), sorted.

    Raises
    ------
    ManifestError
        for a manifest entry synth never writes (:func:`_listed`), or a file it writes (the manifest included)
        that is reached through a link or is not a regular file (:func:`_unsafe_place`), before anything is
        deleted or written.
    OSError
        when a file cannot be written.
    """
    stale_names = _listed(out) - set(org.files)
    for rel in [*sorted(org.files), MANIFEST]:  # never written through a link (--force too), nor into a FIFO
        unsafe = _unsafe_place(out, rel)
        if unsafe is not None:
            raise ManifestError(out, rel, f"(a file synth writes) {unsafe}")
    for rel in sorted(stale_names):  # a smaller org into the folder of a larger one
        stale = out / rel
        if stale.is_file() and not stale.is_symlink():
            stale.unlink()
            for folder in stale.relative_to(out).parents[:-1]:  # its folders left empty (a checkout) go too
                with contextlib.suppress(OSError):
                    (out / folder).rmdir()
    written = []
    for rel in sorted(org.files):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(org.files[rel], encoding="utf-8", newline="\n")
        written.append(path)
    (out / MANIFEST).write_text(json.dumps(sorted(org.files), indent=0) + "\n", encoding="utf-8", newline="\n")
    return written
