"""Run scripts: signing and publishing/deploy commands found in ``run:`` text (a heuristic, not a shell).

Commands are split on newlines, ``&&``, ``||`` and ``;`` (continuation lines
joined) and tokenised like a shell; ``${{ }}`` and ``$var`` parts of a word
become ``*`` in identifiers (:func:`shell_pattern`).

- ``cosign sign|attest|sign-blob|attest-blob``: with ``--key`` (or a
  ``COSIGN*KEY`` env secret), the key held by that secret, or the KMS key
  URI; without, the job's keyless identity.  ``gpg --import|--sign|...``
  with a secret in the script or a ``GPG``/``PGP``/``KEY`` env secret: the
  key held by that secret.
- ``docker push``, ``twine upload``, ``npm|pnpm|yarn publish``,
  ``aws s3 cp|sync|mv`` and ``gsutil``/``gcloud storage`` copies to a
  bucket: ``publishes_to``; ``kubectl``/``helm`` changes (per
  ``--context``) and ``aws lambda update-function-code``: ``deploys_to``.

- the runner registration API (``/orgs/{org}/actions/runners/registration-token``,
  ``/repos/{owner}/{repo}/...``, ``generate-jitconfig``, through ``gh api``
  or curl): the secrets the script reads can register runners there
  (``can_register_runner``; :mod:`graphkit.resolve.registration`), REST docs
  https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization.

Sources: https://docs.sigstore.dev/cosign/signing/signing_with_containers/,
https://twine.readthedocs.io/en/stable/, https://docs.npmjs.com/cli/commands/npm-publish
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from typing import NamedTuple

from graphkit.model import EdgeKind, Organization, Repository, ids

from ..expressions import EXPRESSION_PATTERN
from .base import StepRule, StepView, add_target
from .publish import package_index, registry_host
from .signing import key_from_secrets, keyless, signing_key

__all__ = ["PUBLISH_COMMANDS", "SIGNING_COMMANDS", "commands", "option", "positional", "shell_pattern", "words"]

_COSIGN = re.compile(r"\bcosign\s+(sign|attest|sign-blob|attest-blob)\b[^\n]*")
_KMS = re.compile(r"\b(?:awskms|gcpkms|azurekms|hashivault|k8s)://[^\s\"']+")
_GPG = re.compile(r"\bgpg2?\b[^\n]*--(import|sign|detach-sign|clearsign|clear-sign)\b")
_COMMAND_SPLIT = re.compile(r"\n|&&|\|\||;")
_KUBE_CHANGES = frozenset({"apply", "create", "replace", "patch", "delete", "set", "rollout", "scale", "install",
                           "upgrade", "uninstall", "rollback"})


_EXPR = re.compile(EXPRESSION_PATTERN, re.DOTALL)  # a ``}}`` in a string literal does not end it
#: kubectl/helm global options that take a value (``--context prod apply``: ``prod`` is not the verb).
#: https://kubernetes.io/docs/reference/kubectl/kubectl/ , https://helm.sh/docs/helm/helm/
_KUBE_VALUE_OPTIONS = frozenset({"--context", "--kube-context", "-n", "--namespace", "--kubeconfig", "--cluster",
                                 "--user", "-s", "--server", "--token", "--as", "--kube-apiserver"})


#: Longest command tokenised like a shell (issue 18: a 1 MB ``run:`` line took minutes in ``shlex``).
_SHLEX_MAX = 8192


def words(cmd: str) -> list[str]:
    """One command tokenised like a shell, each ``${{ }}`` expression kept whole inside its word (GitHub
    substitutes it before the shell runs).

    >>> words("cosign sign --key ${{ secrets.K }} img 'a b'")
    ['cosign', 'sign', '--key', '${{ secrets.K }}', 'img', 'a b']
    """
    exprs: list[str] = []

    def hold(m: re.Match[str]) -> str:
        exprs.append(m.group(0))
        return f"\x00{len(exprs) - 1}\x00"

    held = _EXPR.sub(hold, cmd)
    try:
        # shlex grows a token one character at a time (quadratic): a command past _SHLEX_MAX is split on whitespace
        tokens = shlex.split(held, comments=True) if len(held) <= _SHLEX_MAX else held.split()
    except ValueError:
        tokens = held.split()
    return [re.sub(r"\x00(\d+)\x00", lambda m: exprs[int(m.group(1))], t) for t in tokens]


def commands(run: str, *, naming: frozenset[str] | None = None) -> Iterator[list[str]]:
    """Shell-ish commands of a script (continuation lines joined) as token lists (:func:`words`).

    ``naming``: only the commands whose text (quotes and backslashes aside) contains one of these words (the
    others are not tokenised: a word a shell token spells is in that text, as its characters are the token's
    less the quotes and escapes that ``shlex`` removes).

    >>> list(commands("make && twine upload dist/* # done\\nnpm \\\\\\n publish"))
    [['make'], ['twine', 'upload', 'dist/*'], ['npm', 'publish']]
    >>> list(commands("make && twi'ne' upload x", naming=frozenset({"twine"})))
    [['twine', 'upload', 'x']]
    """
    for cmd in _COMMAND_SPLIT.split(_EXPR.sub(lambda m: m.group(0).replace("\n", " "), run).replace("\\\n", " ")):
        if naming is not None:
            bare = cmd.translate(_UNQUOTED)
            if not any(w in bare for w in naming):
                continue
        tokens = words(cmd)
        if tokens:
            yield tokens


#: quotes and backslashes, deleted (:func:`commands`' ``naming`` test)
_UNQUOTED = str.maketrans("", "", "'\"\\")


def option(tokens: list[str], *names: str) -> str | None:
    """The value of the first option of ``names`` (``--opt value`` or ``--opt=value``)."""
    for i, t in enumerate(tokens):
        for n in names:
            if t == n and i + 1 < len(tokens):
                return tokens[i + 1]
            if t.startswith(n + "="):
                return t.split("=", 1)[1]
    return None


def positional(tokens: list[str]) -> list[str]:
    """Tokens that are not options (option values are kept: a heuristic)."""
    return [t for t in tokens if not t.startswith("-")]


def shell_pattern(text: str) -> str:
    """Literal text of a shell word: ``${{ }}`` and ``$var`` parts become ``*``.

    >>> shell_pattern("s3://${BUCKET}-docs/$PREFIX")
    's3://*-docs/*'
    """
    return re.sub(EXPRESSION_PATTERN + r"|\$\{[^}]*\}|\$\w+", "*", text, flags=re.DOTALL)


# ---------------------------------------------------------------- signing commands


def _is_cosign_key_var(name: str) -> bool:
    up = name.upper()
    return "COSIGN" in up and "KEY" in up and "PASSWORD" not in up


def _cosign(sv: StepView, line: str) -> None:
    ev = sv.ev("run", line)
    key_env = sv.env_secrets(_is_cosign_key_var)
    if "--key" not in line and not key_env:
        keyless(sv, ev)
        return
    kms = _KMS.search(line)
    if kms:
        signing_key(sv, "cosign", shell_pattern(kms.group(0)), ev)
        return
    key_arg = option(words(line), "--key") or "cosign.key"
    key_from_secrets(sv, "cosign", sv.secrets_in(key_arg) or key_env, shell_pattern(key_arg), ev)


def run_signing(sv: StepView) -> None:
    """cosign and gpg signing commands."""
    run = sv.run
    for m in _COSIGN.finditer(run):
        _cosign(sv, m.group(0))
    for m in _GPG.finditer(run):
        secrets = sv.secrets_in(run) or sv.env_secrets(lambda k: any(w in k.upper() for w in ("GPG", "PGP", "KEY")))
        if secrets:
            key_from_secrets(sv, "gpg", secrets, "gpg-key", sv.ev("run", m.group(0)))


# ---------------------------------------------------------------- publish and deploy commands


class _Hit(NamedTuple):
    kind: EdgeKind
    target_type: str
    identifier: str


def _bucket(dest: str, scheme: str) -> str | None:
    """``{scheme}{bucket}`` of a destination URL with that scheme, else None."""
    return scheme + shell_pattern(dest[len(scheme):].split("/", 1)[0]) if dest.startswith(scheme) else None


def _docker_push(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:2] == ["docker", "push"] and len(words) > 2:
        return _Hit(EdgeKind.PUBLISHES_TO, "registry", registry_host(shell_pattern(words[2])))
    return None


def _twine_upload(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:1] == ["twine"] and "upload" in words:
        url = option(tokens, "--repository-url") or option(tokens, "--repository", "-r") or "pypi"
        return _Hit(EdgeKind.PUBLISHES_TO, "package_index", package_index(shell_pattern(url)))
    return None


def _npm_publish(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:1] in (["npm"], ["pnpm"], ["yarn"]) and "publish" in words[1:3]:
        return _Hit(EdgeKind.PUBLISHES_TO, "package_index", shell_pattern(option(tokens, "--registry") or "npm"))
    return None


def _kube_verb(tokens: list[str]) -> str | None:
    """The subcommand of a kubectl/helm command, after global options (and their values)."""
    skip = False
    for t in tokens[1:]:
        if skip:
            skip = False
        elif t.startswith("-"):
            skip = t in _KUBE_VALUE_OPTIONS
        else:
            return t
    return None


def _kube_change(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:1] in (["kubectl"], ["helm"]) and _kube_verb(tokens) in _KUBE_CHANGES:
        context = option(tokens, "--context", "--kube-context") or "default"
        return _Hit(EdgeKind.DEPLOYS_TO, "cluster", f"{repo}:{shell_pattern(context)}")
    return None


def _s3_copy(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:2] == ["aws", "s3"] and len(words) > 3 and words[2] in ("cp", "sync", "mv"):
        bucket = _bucket(words[-1], "s3://")
        return None if bucket is None else _Hit(EdgeKind.PUBLISHES_TO, "bucket", bucket)
    return None


def _gcs_copy(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:2] in (["gsutil", "cp"], ["gsutil", "rsync"]) or words[:3] in (["gcloud", "storage", "cp"],
                                                                              ["gcloud", "storage", "rsync"]):
        bucket = _bucket(words[-1], "gs://")
        return None if bucket is None else _Hit(EdgeKind.PUBLISHES_TO, "bucket", bucket)
    return None


def _lambda_update(tokens: list[str], words: list[str], repo: str) -> _Hit | None:
    if words[:3] == ["aws", "lambda", "update-function-code"]:
        name = option(tokens, "--function-name")
        return _Hit(EdgeKind.DEPLOYS_TO, "function", shell_pattern(name)) if name else None
    return None


#: The first positional word of every command a matcher of :data:`_COMMANDS` takes.
_FIRST_WORDS = frozenset({"docker", "twine", "npm", "pnpm", "yarn", "kubectl", "helm", "aws", "gsutil", "gcloud"})

#: One matcher per command family, ``(tokens, positional words, secrets repository key) -> hit or None``; the
#: families do not overlap (their first words differ: :data:`_FIRST_WORDS`).
_COMMANDS: tuple[Callable[[list[str], list[str], str], _Hit | None], ...] = (
    _docker_push, _twine_upload, _npm_publish, _kube_change, _s3_copy, _gcs_copy, _lambda_update)


def run_publish(sv: StepView) -> None:
    """Publish and deploy commands."""
    for tokens in commands(sv.run, naming=_FIRST_WORDS):
        words = positional(tokens)
        hit = next((h for match in _COMMANDS if (h := match(tokens, words, sv.job.rk)) is not None), None)
        if hit is not None:
            ev = sv.ev("run", " ".join(tokens))
            sv.from_job(hit.kind, add_target(sv, hit.target_type, hit.identifier, ev), ev)


_REGISTRATION = re.compile(r"/(?:orgs/(?P<org>[^/\s\"']+)|repos/(?P<owner>[^/\s\"']+)/(?P<repo>[^/\s\"']+))"
                           r"/actions/runners/(?:registration-token|generate-jitconfig)\b")


def run_registration(sv: StepView) -> None:
    """Calls of the runner registration API: the script's secrets (or ``*TOKEN``/``*PAT``/``*KEY`` env secrets)."""
    for m in _REGISTRATION.finditer(_EXPR.sub("$expr", sv.run)):
        secrets = sv.secrets_in(sv.run) or sv.env_secrets(lambda k: any(w in k.upper() for w in ("TOKEN", "PAT",
                                                                                                 "KEY")))
        if not secrets:
            continue
        ev = sv.ev("run", m.group(0))
        owner = sv.job.rk.split("/")[0]
        if m.group("org") is not None:
            org = m.group("org") if "$" not in m.group("org") else owner  # ${{ github.repository_owner }}
            target = sv.out.node(Organization(id=ids.organization(org), name=org, evidence=[ev]))
        else:
            full = f"{m.group('owner')}/{m.group('repo')}"
            full = sv.job.rk if "$" in full else full  # ${{ github.repository }}
            target = sv.out.node(Repository(id=ids.repository(full), name=full, full_name=full, evidence=[ev]))
        sv.job.grant(secrets, EdgeKind.CAN_REGISTER_RUNNER, target, ev)


SIGNING_COMMANDS = StepRule("run-signing", run_signing, "cosign and gpg commands in run scripts", scripts=True)
PUBLISH_COMMANDS = StepRule("run-publish", run_publish, "publish and deploy commands in run scripts", scripts=True)
REGISTRATION_COMMANDS = StepRule("run-registration", run_registration,
                                 "runner registration-token API calls in run scripts", scripts=True)
