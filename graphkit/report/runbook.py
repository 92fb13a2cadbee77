"""The revocation plan as a runbook: concrete actions per step, a Markdown checklist and a dry-run shell script.

:func:`step_actions` turns one :class:`~graphkit.analysis.RevocationStep` into
the commands that perform it, with the ids the graph knows filled in (the
organization and runner name, the repository of a cache, the scope of a
secret, the role name, the host and path of a credential) and the
documentation URL of each.  :func:`runbook_markdown` prints the ordered
checklist, :func:`runbook_script` a POSIX shell script in which every command
runs through ``run`` (printed, not run, unless ``DRY_RUN=0``) and every
action on a host is a comment (it runs on another machine, by a person).

Never a secret value: graphkit holds none.  ``gh secret set`` prompts for the
new value; fingerprints are not printed either.  Every value taken from the
inputs is shell-quoted (:func:`shlex.quote`).

Sources of the commands: GitHub REST "Delete a self-hosted runner from an
organization" (https://docs.github.com/en/rest/actions/self-hosted-runners#delete-a-self-hosted-runner-from-an-organization),
"Update a self-hosted runner group for an organization"
(https://docs.github.com/en/rest/actions/self-hosted-runner-groups#update-a-self-hosted-runner-group-for-an-organization),
GitHub CLI ``gh cache delete`` (https://cli.github.com/manual/gh_cache_delete) and ``gh secret set``
(https://cli.github.com/manual/gh_secret_set), AWS CLI ``iam update-assume-role-policy``
(https://docs.aws.amazon.com/cli/latest/reference/iam/update-assume-role-policy.html), ``iam put-role-policy``
with the session-revocation Deny (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html),
``iam update-access-key`` (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html).
GitLab: REST API v4 "Runners API" (delete a runner, reset a runner's authentication token,
https://docs.gitlab.com/api/runners/), "Project-level CI/CD variables API" (update a variable,
https://docs.gitlab.com/api/project_level_variables/), ``gitlab-runner unregister``
(https://docs.gitlab.com/runner/commands/#gitlab-runner-unregister), through ``curl`` with the token in
``$GITLAB_TOKEN`` (never on the command line).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from shlex import quote
from typing import Literal
from urllib.parse import urlsplit

from graphkit.analysis import RevocationPlan, RevocationStep
from graphkit.analysis.timeline import TokenStatus
from graphkit.graph import Graph
from graphkit.model import (Cache, CloudRole, CloudSecret, CloudUser, Credential, EdgeKind, Host, KubeSecret, Node,
                            RevocationAction, Runner, RunnerGroup, Secret, UntrustedActor, ids)

from graphkit.report import runbook_k8s as k8s  # noqa: E402 - Kubernetes/ARC subjects (issue 15)
from graphkit.report.runbook_cloud import rotate_cloud_secret  # noqa: E402 - cloud secrets, per service

__all__ = ["Action", "runbook_markdown", "runbook_script", "step_actions"]

R = RevocationAction
_GH = "https://docs.github.com/en/rest/actions/self-hosted-runners"
_HARDEN = ("https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
           "security-hardening-for-github-actions#hardening-for-self-hosted-runners")
_REVOKE_DOC = "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html"


@dataclass(frozen=True, slots=True)
class Action:
    """One concrete action of a step.

    ``where``: ``api`` (a GitHub or AWS command, run through the script's
    ``run`` guard), ``host`` (a command on the named host: a comment in the
    script) or ``manual`` (a person's task: a comment).  ``command``: the
    shell command (values quoted), None for a manual task.
    """

    text: str
    doc: str
    where: Literal["api", "host", "manual"]
    command: str | None = None
    host: str | None = None


def _line(text: str) -> str:
    """One line of text: control characters (a newline in an input name) become spaces."""
    return "".join(c if c.isprintable() else " " for c in text)


def _cmd(*argv: str) -> str:
    return " ".join(quote(a) for a in argv)


def _lookup_delete(path: str, jq_list: str, name: str, host: tuple[str, ...] = ()) -> str:
    """``sh -c`` that finds an object's numeric id by name, then DELETEs ``path/<id>`` (``host``: ``gh api``'s
    ``--hostname HOST`` arguments, :func:`_gh_host`)."""
    select = f"{jq_list}[] | select(.name == {json.dumps(name)}) | .id"
    gh = " ".join(["gh", "api", *(quote(h) for h in host)])
    inner = (f"id=$({gh} --paginate {quote(path)} --jq {quote(select)}) && test -n \"$id\" && "
             f"{gh} -X DELETE {quote(path)}/\"$id\"")
    return _cmd("sh", "-c", inner)


def _runner_api(scope: str) -> str:
    return f"/repos/{scope}/actions/runners" if "/" in scope else f"/orgs/{scope}/actions/runners"


def _gh_host(node: Runner) -> tuple[str, ...]:
    """``("--hostname", HOST)`` for a registration on a GitHub Enterprise Server or ``SUBDOMAIN.ghe.com`` host
    (its URL's host), whose API ``gh api`` reaches only with ``--hostname`` (GitHub CLI manual, ``gh api``:
    https://cli.github.com/manual/gh_api); ``()`` for github.com or when not known.

    >>> from graphkit.model import RunnerRegistration
    >>> r = Runner(id="runner:acme/x", name="x", scope="acme",
    ...            registration=RunnerRegistration(config_path="/opt/r/.runner", url="https://GHE.example.com/acme"))
    >>> _gh_host(r), _gh_host(r.model_copy(update={"registration": None}))
    (('--hostname', 'ghe.example.com'), ())
    """
    url = node.registration.url if node.registration is not None else None
    try:
        host = urlsplit(url).hostname if url else None
    except ValueError:
        return ()
    return ("--hostname", host) if host and host not in ("github.com", "www.github.com") else ()


def _remove_runner(node: Node, graph: Graph) -> list[Action]:
    if isinstance(node, Runner) and node.pods is not None:  # an ARC pool: its registration is the scale set's
        return k8s.delete_scale_set(node, graph)
    if not isinstance(node, Runner) or node.inferred:
        return [Action(f"Find the runners serving labels {', '.join(getattr(node, 'labels', []))} and remove "
                       "each registration (Settings > Actions > Runners)", _GH, "manual")]
    path, host = _runner_api(node.scope), _gh_host(node)
    agent = node.registration.agent_id if node.registration else None
    cmd = (_cmd("gh", "api", *host, "-X", "DELETE", f"{path}/{agent}") if agent
           else _lookup_delete(path, ".runners", (node.registration and node.registration.agent_name) or node.name,
                               host))
    out = [Action(f"Remove the registration {node.name} of {node.scope}", _GH + "#delete-a-self-hosted-runner-from-"
                  + ("a-repository" if "/" in node.scope else "an-organization"), "api", cmd)]
    if node.host:
        out.append(_uninstall_service(node, _runner_folder(node, graph)))
    return out


#: ``svc.sh`` runs in the runner's folder; the service it installs is a systemd unit ``actions.runner.*``
#: (GitHub docs "Configuring the self-hosted runner application as a service").
_SERVICE_DOC = ("https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
                "configuring-the-self-hosted-runner-application-as-a-service")


def _uninstall_service(node: Runner, folder: str | None) -> Action:
    """The host action that uninstalls ``node``'s service: ``cd FOLDER && sudo ./svc.sh uninstall`` on one command
    line when the folder is known; else never a bare ``./svc.sh uninstall`` (typed after an earlier step's ``cd``
    it would uninstall another runner): the folder is said to be unknown, and the command lists the runner
    services (``actions.runner.<scope>.<name>.service``) whose ``WorkingDirectory`` is the folder."""
    if folder:
        return Action(f"Stop and uninstall the runner service in {folder} (its .runner and .credentials are dead "
                      "once removed)", "https://docs.github.com/en/actions/hosting-your-own-runners/"
                      "managing-self-hosted-runners/removing-self-hosted-runners", "host",
                      f"cd {quote(folder)} && sudo ./svc.sh uninstall", node.host)
    return Action(f"Stop and uninstall the runner service of {node.name}: its folder is unknown (the inputs name "
                  f"no .runner or .credentials path of it). Find its unit (actions.runner.<scope>.{node.name}"
                  ".service, listed by this command), read its folder (systemctl show -p WorkingDirectory UNIT), "
                  "then run cd FOLDER && sudo ./svc.sh uninstall on one line", _SERVICE_DOC, "host",
                  _cmd("systemctl", "list-units", "--all", "--type=service", "actions.runner.*"), node.host)


def _runner_folder(node: Runner, graph: Graph) -> str | None:
    """The runner's directory: from its registration's config path, else from its registration credential's
    file (``.credentials`` sits in the runner directory, GitHub docs "Removing self-hosted runners")."""
    if node.registration and node.registration.config_path:
        return node.registration.config_path.rsplit("/", 1)[0]
    paths = sorted(c.path for e in graph.out_edges(node.id) if e.kind is EdgeKind.REGISTRATION_CREDENTIAL
                   and isinstance(c := graph.node(e.target), Credential) and "/" in c.path)
    return paths[0].rsplit("/", 1)[0] if paths else None


def _reimage(node: Node, graph: Graph) -> list[Action]:
    if isinstance(node, Host) and node.cluster is not None:  # Kubernetes nodes: cordon, drain, replace
        return k8s.replace_nodes(node, graph)
    name = node.name if isinstance(node, Host) else node.id
    platforms = {r.platform for e in graph.out_edges(node.id) if e.kind is EdgeKind.HOSTS
                 and isinstance(r := graph.node(e.target), Runner)}
    stop = [_cmd("sudo", "systemctl", "stop", "actions.runner.*")] if platforms != {"gitlab"} else []
    if "gitlab" in platforms:  # GitLab Runner's service (https://docs.gitlab.com/runner/configuration/init/)
        stop.append(_cmd("sudo", "gitlab-runner", "stop"))
    return [Action(f"Take {name} out of service: stop every runner service, keep a disk image for forensics",
                   _HARDEN, "host", " && ".join(stop), name),
            Action(f"Reimage {name} from a known-good image before it runs jobs again (persistence on the host "
                   "is assumed)", _HARDEN, "manual")]


def _purge(node: Node, graph: Graph) -> list[Action]:
    if isinstance(node, Runner) and node.pods is not None:  # an ARC pool's volumes that outlive its pods
        return k8s.purge_volumes(node, graph)
    if isinstance(node, Cache) and node.cache_type == "actions":
        repo = ids.parse(node.id).parts["repo"]
        return [Action(f"Delete every Actions cache of {repo}", "https://cli.github.com/manual/gh_cache_delete",
                       "api", _cmd("gh", "cache", "delete", "--all", "--repo", repo))]
    host, path = (node.scope, node.path) if isinstance(node, Cache) else (None, None)
    return [Action(f"Delete the host cache {path} on {host}", _HARDEN, "host",
                   _cmd("sudo", "rm", "-rf", "--", path or "<path>"), host)]


def _secret_scope(node: Secret) -> list[str]:
    if node.scope == "org":  # gh defaults an org secret to private visibility: keep the stored one
        vis = ["--visibility", node.visibility] if node.visibility else []
        repos = ["--repos", ",".join(r.split("/")[-1] for r in node.selected_repositories)] \
            if node.visibility == "selected" and node.selected_repositories else []
        return ["--org", node.owner, *vis, *repos]
    if node.scope == "env" and node.repository and node.environment:
        return ["--repo", node.repository, "--env", node.environment]
    return ["--repo", node.repository or node.owner]


def _rotate_secret(node: Node, graph: Graph) -> list[Action]:
    if isinstance(node, KubeSecret):
        return k8s.rotate_kube_secret(node, graph)
    if isinstance(node, CloudSecret):  # each service its own command (runbook_cloud)
        return rotate_cloud_secret(node, graph)
    if not isinstance(node, Secret):
        return [Action(f"Rotate {node.name} at its issuer, then store the new value",
                       "https://cli.github.com/manual/gh_secret_set", "manual")]
    repo = node.repository or node.owner
    if node.scope == "all":  # every secret a job of repo can see: repository, environment, organization
        return [Action(f"Rotate every secret visible to {repo} at its issuer (the inputs do not name them: its "
                       "repository, environment and organization secrets), then store the new values",
                       "https://cli.github.com/manual/gh_secret_set", "manual")]
    if node.scope == "unknown":  # the name is known, where it is defined is not
        return [Action(f"Revoke {node.secret_name} at its issuer and issue a new value, then store it where {repo} "
                       "defines it (a repository, environment or organization secret: the inputs do not say which)",
                       "https://cli.github.com/manual/gh_secret_set", "manual")]
    return [Action(f"Revoke {node.secret_name} at its issuer and issue a new value", "https://docs.github.com/en/"
                   "actions/security-for-github-actions/security-guides/using-secrets-in-github-actions", "manual"),
            *_registered_meanwhile(node, graph),
            Action(f"Store the new value of {node.secret_name} (gh prompts for it; never on the command line)",
                   "https://cli.github.com/manual/gh_secret_set", "api",
                   _cmd("gh", "secret", "set", node.secret_name, *_secret_scope(node)))]


_PAT_DOC = ("https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/"
            "managing-your-personal-access-tokens#deleting-a-personal-access-token")
_APP_KEY_DOC = ("https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/"
                "managing-private-keys-for-github-apps")
_ISSUER = {
    "github_pat": ("Delete the personal access token in its owner's settings, then issue a narrower one", _PAT_DOC),
    "gh": ("Revoke the gh CLI token (gh auth logout on the host, then revoke it in the owner's settings)", _PAT_DOC),
    "github_app_key": ("Delete the GitHub App private key (App settings > Private keys) and generate a new one",
                       _APP_KEY_DOC),
    "aws": ("Deactivate the access key found in the file (aws iam update-access-key --status Inactive), then "
            "create a new one", "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html"),
    "docker": ("Revoke the registry token stored in the file at the registry, then log in again",
               "https://docs.docker.com/reference/cli/docker/login/"),
}


def _registered_meanwhile(node: Node, graph: Graph) -> list[Action]:
    """For a registrar (``can_register_runner``): list the runners it may have registered since the compromise."""
    scopes = sorted({e.props["scope"] for e in graph.out_edges(node.id)
                     if e.kind is EdgeKind.CAN_REGISTER_RUNNER and e.props.get("scope")})
    return [_list_runners(scope, "any registered since the compromise") for scope in scopes]


def _list_runners(scope: str, which: str) -> Action:
    """List the runners of ``scope`` (``GET .../actions/runners``) to remove ``which`` of them."""
    return Action(f"List the runners of {scope} and remove {which}", _GH, "api",
                  _cmd("gh", "api", "--paginate", _runner_api(scope), "--jq",
                       ".runners[] | [.id, .name, .status] | @tsv"))


def _token_scope(subject: str, graph: Graph) -> str | None:
    """The scope whose runners a registration token's subject (its runner group or runner) registers: the
    group's owner, the runner's scope; None when the graph does not have it."""
    node = graph.node(subject) if subject in graph else None
    if isinstance(node, RunnerGroup):
        return node.owner
    return node.scope if isinstance(node, Runner) else None


def _token_actions(t: TokenStatus, graph: Graph) -> list[Action]:
    """What a classified token calls for in the runbook: for a registration token expired after the compromise
    began (``runners_remain``), the runners of its scope to list and clean up."""
    scope = _token_scope(t.issued.subject, graph) if t.status == "runners_remain" else None
    if scope is None:
        return []
    issued = t.issued.issued_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = t.expires_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if t.expires_at else "now"
    return [_list_runners(scope, f"the unknown ones registered between {issued} and {until} (the audit log's "
                                 "register_self_hosted_runner events give the time)")]


_LITERAL_DOC = ("https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
                "security-hardening-for-github-actions#using-secrets")


def _rotate_literal(node: Credential) -> list[Action]:
    """A credential written in a CI file: revoke it at its issuer (it is in the git history and every clone),
    then replace the text by a reference to a secret (a GitLab masked, protected CI/CD variable)."""
    places = ", ".join(dict.fromkeys(f"{e.file}:{e.line}" if e.line else e.file for e in node.evidence))
    store = ("a masked, protected CI/CD variable" if node.id.startswith("credential:literal:gitlab:")
             else "an Actions secret referenced as ${{ secrets.NAME }}")
    return [Action(f"Revoke the {node.literal_kind or 'credential'} written in {node.repository} ({places}) at "
                   "its issuer and issue a new value (the old one stays in the git history)", _LITERAL_DOC, "manual"),
            Action(f"Remove it from the file(s) and store the new value as {store}", _LITERAL_DOC, "manual")]


def _rotate_credential(node: Node, graph: Graph) -> list[Action]:
    if not isinstance(node, Credential):
        return [Action(f"Rotate {node.name} at its issuer", _HARDEN, "manual")]
    if node.credential_type == "literal":
        return _rotate_literal(node)
    text, doc = _ISSUER.get(node.credential_type, (f"Rotate the {node.credential_type} credential at its issuer",
                                                    _HARDEN))
    out = [Action(text, doc, "manual"), *_registered_meanwhile(node, graph)]
    out.append(Action(f"Delete {node.path} (the copy an attacker took stays valid until the rotation above)",
                      _HARDEN, "host", _cmd("sudo", "shred", "-u", "--", node.path), node.host))
    return out


def _role_name(node: Node) -> str:
    return node.identifier.rsplit("/", 1)[-1] if isinstance(node, CloudRole) else node.name


def _narrow_text(node: Node) -> str:
    """What to pin: GitHub's ``sub``/``aud``, or for a GitLab issuer ``HOST:sub`` to the project and protected ref
    (AWS evaluates only ``sub`` and ``aud`` of GitLab tokens, graphkit/data/gitlab_oidc_claims.json)."""
    trust = json.dumps(node.trust_policy) if isinstance(node, CloudRole) and node.trust_policy else ""
    if "token.actions." in trust or "oidc-provider/" not in trust:
        return ("Edit it: pin token.actions.githubusercontent.com:sub to the exact repository and environment or "
                "branch (StringEquals), aud to sts.amazonaws.com")
    return ("Edit it: pin HOST:sub to project_path:GROUP/PROJECT:ref_type:branch:ref:main (StringEquals; a "
            "protected branch) and HOST:aud to the job's id_tokens audience; conditions on other GitLab claims are "
            "not evaluated by AWS")


def _narrow_trust(node: Node, graph: Graph) -> list[Action]:
    role = _role_name(node)
    doc = "https://docs.aws.amazon.com/cli/latest/reference/iam/update-assume-role-policy.html"
    return [Action(f"Save the trust policy of {role}", doc, "api",
                   _cmd("sh", "-c", _cmd("aws", "iam", "get-role", "--role-name", role, "--query",
                                         "Role.AssumeRolePolicyDocument", "--output", "json")
                        + f" > {quote(role + '-trust.json')}")),
            Action(_narrow_text(node), doc, "manual"),
            Action(f"Apply the narrowed trust policy to {role}", doc, "api",
                   _cmd("aws", "iam", "update-assume-role-policy", "--role-name", role, "--policy-document",
                        f"file://{role}-trust-narrowed.json"))]


def _revoke_sessions(node: Node, graph: Graph, now: datetime) -> list[Action]:
    role = _role_name(node)
    stamp = now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": ["*"], "Resource": ["*"],
                                                      "Condition": {"DateLessThan": {"aws:TokenIssueTime": stamp}}}]}
    return [Action(f"Revoke the sessions of {role} issued before {stamp} (inline Deny on aws:TokenIssueTime)",
                   _REVOKE_DOC, "api", _cmd("aws", "iam", "put-role-policy", "--role-name", role, "--policy-name",
                                            "AWSRevokeOlderSessions", "--policy-document",
                                            json.dumps(policy, separators=(",", ":"))))]


def _rotate_access_keys(node: Node, graph: Graph) -> list[Action]:
    user = node.arn.rsplit("/", 1)[-1] if isinstance(node, CloudUser) else node.name
    doc = "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html"
    return [Action(f"List the access keys of {user}", doc, "api",
                   _cmd("aws", "iam", "list-access-keys", "--user-name", user)),
            Action(f"Deactivate each listed key of {user} (aws iam update-access-key --user-name USER --access-key-id "
                   "KEY --status Inactive), then create a new one", doc, "manual")]


def _restrict_group(node: Node, graph: Graph) -> list[Action]:
    if not isinstance(node, RunnerGroup):
        return [Action(f"Restrict {node.name}", _GH, "manual")]
    path = f"/orgs/{node.owner}/actions/runner-groups"
    select = f".runner_groups[] | select(.name == {json.dumps(node.name)}) | .id"
    inner = (f"id=$(gh api --paginate {quote(path)} --jq {quote(select)}) && test -n \"$id\" && "
             f"gh api -X PATCH {quote(path)}/\"$id\" -f visibility=selected")
    return [Action(f"Limit the runner group {node.name} to selected repositories (then add only those that need it)",
                   "https://docs.github.com/en/rest/actions/self-hosted-runner-groups#update-a-self-hosted-runner-"
                   "group-for-an-organization", "api", _cmd("sh", "-c", inner))]


def _workflow_edit(text: str, doc: str) -> Callable[[Node, Graph], list[Action]]:
    def actions(node: Node, graph: Graph) -> list[Action]:
        where = next((f" ({e.file}{':' + str(e.line) if e.line else ''})" for e in node.evidence), "")
        return [Action(f"{text}: {node.name}{where}", doc, "manual")]
    return actions


_APPROVAL_DOC = ("https://docs.github.com/en/rest/actions/permissions#set-fork-pr-contributor-approval-permissions-"
                 "for-an-organization")
_PRT_DOC = ("https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-"
            "github-actions#understanding-the-risk-of-script-injections")
_UNTRUSTED_EDIT = {
    "fork-pr": "Stop building pull request code in this job (no checkout of the PR head under pull_request_target / "
               "workflow_run; no self-hosted runner for fork pull requests)",
    "comment": "Stop building pull request code from an issue_comment job (or gate it on author_association)",
    "org-member": "Require review before this job runs member code (environment with required reviewers, or a "
                  "GitHub-hosted runner)",
}


def _restrict_trigger(node: Node, graph: Graph) -> list[Action]:
    """Close an untrusted entry point: the org's fork-PR approval policy, then each job it can trigger.

    GitHub REST "Set fork PR contributor approval permissions for an organization"
    (PUT /orgs/{org}/actions/permissions/fork-pr-contributor-approval, ``approval_policy``:
    ``all_external_contributors``), https://docs.github.com/en/rest/actions/permissions.
    """
    actor = node.actor if isinstance(node, UntrustedActor) else "fork-pr"
    owner = node.owner if isinstance(node, UntrustedActor) else node.name
    out: list[Action] = []
    if actor == "fork-pr" and "/" not in owner:
        out.append(Action(f"Require approval of fork pull request workflows for all external contributors of {owner}",
                          _APPROVAL_DOC, "api",
                          _cmd("gh", "api", "-X", "PUT", f"/orgs/{owner}/actions/permissions/fork-pr-contributor-"
                               "approval", "-f", "approval_policy=all_external_contributors")))
    for target in sorted({e.target for e in graph.out_edges(node.id) if e.kind is EdgeKind.CAN_TRIGGER}):
        text = (_UNTRUSTED_EDIT[actor] if not isinstance(graph.node(target), Runner) else
                "Limit which repositories and workflows may use this self-hosted runner (its runner group: selected "
                "repositories, restricted_to_workflows): a writer's pushed workflow may name it" if actor == "org-member"
                else "Keep pull request code off this self-hosted runner (its runner group: allows_public_repositories "
                "false, or GitHub-hosted runners for the repository's pull request jobs)")
        out += _workflow_edit(text, _PRT_DOC)(graph.node(target), graph)
    return out or [Action(f"Close the untrusted entry {node.name}", _PRT_DOC, "manual")]


# --------------------------------------------------------------------------- GitLab (issue 14)

_GL_RUNNERS = "https://docs.gitlab.com/api/runners/"
_GL_AUTH = 'PRIVATE-TOKEN: $GITLAB_TOKEN'


def _gl_api(method: str, host: str, path: str, *extra: str) -> str:
    """``curl`` of the GitLab REST API v4 on ``host`` (token from ``$GITLAB_TOKEN``, expanded by the shell)."""
    url = f"https://{host}/api/v4/{path}"
    return _cmd("sh", "-c", f"curl --fail --request {method} --header {quote(_GL_AUTH).replace(chr(39), chr(34))} "
                + " ".join(quote(x) for x in [*extra, url]))


def _delete_gitlab_runner(node: Node, graph: Graph) -> list[Action]:
    """Delete the runner (``DELETE /runners/:id``: its authentication token stops working), then unregister it on
    its host (https://docs.gitlab.com/runner/commands/#gitlab-runner-unregister)."""
    if not isinstance(node, Runner) or node.gitlab is None and node.registration is None:
        return [Action(f"Delete the GitLab runner {node.name} (Admin or group/project Settings > CI/CD > Runners)",
                       _GL_RUNNERS + "#delete-a-runner", "manual")]
    rid = node.gitlab.runner_id if node.gitlab else None
    rid = rid if rid is not None else (node.registration.agent_id if node.registration else None)
    host = node.gitlab.instance if node.gitlab else node.scope
    out = [Action(f"Delete the GitLab runner {node.name} of {host}", _GL_RUNNERS + "#delete-a-runner", "api",
                  _gl_api("DELETE", host, f"runners/{rid}")) if rid is not None else
           Action(f"Find the GitLab runner {node.name} of {host} (GET /runners/all) and delete it",
                  _GL_RUNNERS + "#delete-a-runner", "manual")]
    if node.host:
        out.append(Action(f"Unregister {node.name} on its host (the config.toml entry is dead once deleted)",
                          "https://docs.gitlab.com/runner/commands/#gitlab-runner-unregister", "host",
                          _cmd("sudo", "gitlab-runner", "unregister", "--name", node.name), node.host))
    return out


def _reset_runner_token(node: Node, graph: Graph) -> list[Action]:
    """Reset the authentication token of each runner the token file authenticates
    (``POST /runners/:id/reset_authentication_token``)."""
    doc = _GL_RUNNERS + "#reset-runners-authentication-token-by-using-the-runner-id"
    out = []
    for e in sorted(graph.out_edges(node.id), key=lambda e: e.target):
        r = graph.node(e.target)
        if e.kind is not EdgeKind.AUTHENTICATES_RUNNER or not isinstance(r, Runner):
            continue
        rid = r.gitlab.runner_id if r.gitlab else (r.registration.agent_id if r.registration else None)
        host = r.gitlab.instance if r.gitlab else r.scope
        out.append(Action(f"Reset the authentication token of the GitLab runner {r.name} of {host}", doc, "api",
                          _gl_api("POST", host, f"runners/{rid}/reset_authentication_token")) if rid is not None
                   else Action(f"Reset the authentication token of the GitLab runner {r.name} of {host}", doc,
                               "manual"))
    host = node.host if isinstance(node, Credential) else None
    path = node.path if isinstance(node, Credential) else node.name
    out.append(Action(f"Write the new token into {path} on {host} (or delete the file if the runner goes)", doc,
                      "manual"))
    return out


def _variable_api(node: Secret) -> tuple[str, str] | None:
    """``(instance host, API path)`` of a GitLab variable (instance, group or project level)."""
    info = node.gitlab
    if info is None:
        return None
    host, _, full = info.path.partition("/")
    key = node.secret_name
    if info.level == "instance":
        return host, f"admin/ci/variables/{key}"
    kind = "groups" if info.level == "group" else "projects"
    return host, f"{kind}/{full.replace('/', '%2F')}/variables/{key}"


def _rotate_cicd_variable(node: Node, graph: Graph) -> list[Action]:
    """Rotate the credential at its issuer, then store the new value: read from the terminal, sent from stdin
    (``--form value=<-``), never on the command line ("Update a variable",
    https://docs.gitlab.com/api/project_level_variables/#update-a-variable)."""
    where = _variable_api(node) if isinstance(node, Secret) else None
    name = node.secret_name if isinstance(node, Secret) else node.name
    out = [Action(f"Revoke what {name} holds at its issuer and issue a new value",
                  "https://docs.gitlab.com/ci/variables/", "manual")]
    if where is None or not isinstance(node, Secret) or node.gitlab is None:
        return out
    scope = node.gitlab.environment_scope
    host, path = where
    query = f"{path}?filter[environment_scope]={scope}" if node.gitlab.level != "instance" else path
    out.append(Action(f"Store the new value of {name} (environment scope {scope}; typed, never on the command line)",
                      "https://docs.gitlab.com/api/project_level_variables/#update-a-variable", "api",
                      _gl_api("PUT", host, query, "--form", "value=<-")))
    return out


_ACTIONS: dict[RevocationAction, Callable[[Node, Graph], list[Action]]] = {
    R.DELETE_GITLAB_RUNNER: _delete_gitlab_runner,
    R.RESET_RUNNER_TOKEN: _reset_runner_token,
    R.ROTATE_CICD_VARIABLE: _rotate_cicd_variable,
    R.RESTRICT_UNTRUSTED_TRIGGER: _restrict_trigger,
    R.DELETE_SCALE_SET: k8s.delete_scale_set,
    R.ROTATE_CONTROLLER_CREDENTIAL: k8s.rotate_controller_credential,
    R.ROTATE_SERVICE_ACCOUNT_TOKENS: k8s.rotate_service_account_tokens,
    R.REMOVE_RBAC_BINDING: k8s.remove_rbac_binding,
    R.REPLACE_NODES: k8s.replace_nodes,
    R.REMOVE_RUNNER_REGISTRATION: _remove_runner,
    R.REIMAGE_HOST: _reimage,
    R.PURGE_CACHE: _purge,
    R.ROTATE_SECRET: _rotate_secret,
    R.ROTATE_CREDENTIAL: _rotate_credential,
    R.ROTATE_SIGNING_KEY: _workflow_edit("Rotate the signing key, publish the new public key, revoke signatures made "
                                         "since the compromise", "https://docs.sigstore.dev/cosign/key_management/"
                                         "signing_with_self-managed_keys/"),
    R.NARROW_TRUST_POLICY: _narrow_trust,
    R.ROTATE_ACCESS_KEYS: _rotate_access_keys,
    R.RESTRICT_RUNNER_GROUP: _restrict_group,
    R.REDUCE_TOKEN_PERMISSIONS: _workflow_edit(
        "Set a minimal permissions block on the job (or the org default to read)",
        "https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-"
        "authentication#modifying-the-permissions-for-the-github_token"),
    R.REMOVE_ID_TOKEN_PERMISSION: _workflow_edit(
        "Remove id-token: write from the job",
        "https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/"
        "about-security-hardening-with-openid-connect"),
    R.RESTRICT_ENVIRONMENT: _workflow_edit(
        "Add required reviewers and a branch policy to the environment",
        "https://docs.github.com/en/actions/managing-workflow-runs-and-deployments/managing-deployments/"
        "managing-environments-for-deployment"),
}


def step_actions(graph: Graph, step: RevocationStep, *, now: datetime) -> list[Action]:
    """The concrete actions of one plan step (ids from the graph, a documentation URL each).

    Parameters
    ----------
    graph
        the graph the plan was computed on.
    step
        the step.
    now
        the time of the runbook: the session-revocation Deny cuts sessions issued before it.

    Returns
    -------
    list of Action
        at least one (a manual task when nothing more concrete is known).
    """
    node = graph.node(step.subject_id)
    if step.action is R.REVOKE_ROLE_SESSIONS:
        return _revoke_sessions(node, graph, now)
    return _ACTIONS[step.action](node, graph)


#: every action the plan can emit has its runbook actions (checked by tests/test_attack.py)
HANDLED_ACTIONS = frozenset(_ACTIONS) | {R.REVOKE_ROLE_SESSIONS}


def _md_step(graph: Graph, step: RevocationStep, now: datetime) -> list[str]:
    cuts = f"cuts {len(step.cuts)}" if step.cuts else "cuts nothing by itself"
    lines = [_line(f"- [ ] **{step.rank}. [{step.phase}] {step.action.value}** `{step.subject_id}` "
                   f"({cuts}; residual {step.residual_weight})")]
    for a in step_actions(graph, step, now=now):
        where = f" (on host `{a.host}`)" if a.where == "host" and a.host else ""
        lines.append(_line(f"  - {a.text}{where} ([doc]({a.doc}))"))
        if a.command:
            lines.append(_line(f"    `{a.command}`"))
    return lines


def runbook_markdown(graph: Graph, plan: RevocationPlan, *, now: datetime,
                     tokens: Iterable[TokenStatus] = (), notes: Iterable[str] = (), goes_on: bool = False) -> str:
    """The ordered checklist (Markdown): steps with their actions, then the tokens and sessions by status.

    Parameters
    ----------
    graph, plan
        the graph and its revocation plan.
    now
        the time of the runbook.
    tokens
        classified issued tokens (:func:`graphkit.analysis.timeline.classify_all`).
    notes
        extra lines (e.g. a role whose older sessions are revoked but whose trust path is open).
    goes_on
        ``plan`` holds only the first steps of a longer plan (``--top``): the runbook says so after them.
    """
    stamp = now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = [f"# Runbook: {', '.join(plan.sources)}", "",
           f"Generated {stamp}; weighted blast radius {plan.initial_weight} -> {plan.residual_weight}. "
           "Do the steps in order: credentials that re-register runners and open trust paths first, "
           "sessions after every path that mints them is closed.", ""]
    for step in plan.steps:
        out += _md_step(graph, step, now)
    if goes_on:
        out += ["", _goes_on(plan)]
    tokens = list(tokens)
    if tokens or notes:
        out += ["", "## Tokens and sessions", ""]
        for t in tokens:
            mark = "x" if t.status in ("expired", "revoked", "before_compromise") else " "
            out.append(_line(f"- [{mark}] {t.issued.kind.value} `{t.issued.subject}` issued "
                             f"{t.issued.issued_at.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}: "
                             f"**{t.status}**, {t.reason} ([doc]({t.doc}))"))
            for a in _token_actions(t, graph):
                out.append(_line(f"  - {a.text} ([doc]({a.doc}))"))
                if a.command:
                    out.append(_line(f"    `{a.command}`"))
        out += [_line(f"- {n}") for n in notes]
    return "\n".join(out) + "\n"


def _goes_on(plan: RevocationPlan) -> str:
    return (f"Only the first {len(plan.steps)} steps were computed (--top {len(plan.steps)}): the plan goes on; "
            f"run without --top for every step.")


def runbook_script(graph: Graph, plan: RevocationPlan, *, now: datetime, goes_on: bool = False) -> str:
    """A POSIX shell script of the plan: API commands behind ``run`` (a ``DRY_RUN`` guard), the rest comments;
    ``goes_on``: ``plan`` is the first steps of a longer plan (a closing comment says so)."""
    out = ["#!/bin/sh", f"# graphkit runbook for {', '.join(plan.sources)}: review every command before running it.",
           "# Commands are printed, not run, unless DRY_RUN=0. Host actions are comments: run them on the host.",
           "set -eu", 'DRY_RUN="${DRY_RUN:-1}"',
           'run() { if [ "$DRY_RUN" = "0" ]; then "$@"; else printf "would run:"; printf " %s" "$@"; printf "\\n"; fi; }']
    for step in plan.steps:
        out += ["", _line(f"# --- step {step.rank} [{step.phase}] {step.action.value} {step.subject_id}")]
        for a in step_actions(graph, step, now=now):
            out.append(_line(f"# {a.text}" + (f" (on host {a.host})" if a.host else "")))
            out.append(_line(f"#   doc: {a.doc}"))
            if a.command and a.where == "api":
                out.append(_line(f"run {a.command}"))
            elif a.command:
                out.append(_line(f"# {a.command}"))
    if goes_on:
        out += ["", f"# {_goes_on(plan)}"]
    return "\n".join(out) + "\n"
