"""Node ids, declared with their kinds: one constructor and one parser per id form.

A node id is ``<prefix>:<parts>``, a pure function of the identity of what the
node stands for (never of file order, time, machine or line numbers).  Each
node kind has one or more *forms* (:class:`IdForm`): a template whose
placeholders are typed :class:`Part` objects that normalise once, following
the platform's own case rules:

- GitHub owner, repository, runner group and environment names are
  case-insensitive: lower-cased.  ("Environment names are not case
  sensitive", https://docs.github.com/en/actions/managing-workflow-runs-and-deployments/managing-deployments/managing-environments-for-deployment;
  owners and repositories: https://docs.github.com/en/repositories/creating-and-managing-repositories/about-repositories.)
- Secret names are stored upper-case by GitHub ("Secret names are not case-sensitive",
  https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions#naming-your-secrets):
  upper-cased.
- Host names are DNS names (case-insensitive, RFC 4343): lower-cased.
- AWS ARNs are kept as written: ARN comparison in policies is case-sensitive
  (``ArnEquals``, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN),
  and the partition, service and account parts are lower-case or digits by definition.
- Paths (workflow files, files on a host), job keys, runner names, signing and
  target identifiers are kept as written (case-sensitive).

Typed constructors (:func:`repository`, :func:`secret_env`, :func:`job`...) are
the only way graphkit builds ids; :func:`parse` reads any id back into its
kind, form and parts, and ``parse(build(x)) == x`` for every form (tested).
The README's id column is rendered from :data:`ID_FORMS`.

Examples
--------
>>> repository("Acme/App")
'repo:acme/app'
>>> environment("Acme/App", "PyPI")
'target:environment:acme/app:pypi'
>>> secret_env("acme/app", "Prod", "aws_key")
'secret:env:acme/app:prod:AWS_KEY'
>>> p = parse("secret:env:acme/app:prod:AWS_KEY")
>>> p.kind.value, p.form, p.parts["environment"]
('secret', 'env', 'prod')
>>> repository("no-slash")
Traceback (most recent call last):
...
graphkit.model.ids.IdError: repository id: 'no-slash' is not a valid owner/name
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from graphkit import limits
from graphkit.errors import LimitExceeded
from graphkit.model.enums import NodeKind
from graphkit.model.id_parts import (  # noqa: F401  (Part is re-exported)
    Part, _keep, _path_key, env_key, job_name_part, owner_key, repo_key, runner_name_of_part, runner_name_part,
    secret_key, ACCOUNT, ARN, CLUSTER, ENV, GL_ENV, GL_JOB, GL_KEY, GL_PATH, GL_PROJECT, GL_SCOPE, GROUP, HOSTNAME,
    JOB_KEY, JOB_NAME, JOB_REF, LABELS, NAME, NAMESPACE, OBJECT, OWNER, PATH, POOL, REPO, SCOPE, SECRET, TEXT,
    WF_PATH, WORD, FINGERPRINT)
from graphkit.redact import REDACTED, mark_tokens, strip_url_credentials

__all__ = [
    "IdError", "IdTooLong", "Part", "IdForm", "ParsedId", "ID_FORMS", "FORMS_BY_KIND", "PREFIXES", "parse", "canonical",
    "kind_of",
    "id_format", "host", "runner", "runner_pool", "pool_labels", "runner_group", "organization", "repository",
    "workflow", "job", "job_observed", "job_name_part", "github_token", "oidc_identity", "secret_org", "secret_repo",
    "secret_env", "secret_unknown", "secret_all", "secret_gitlab", "cloud_role", "signing_key", "environment",
    "target", "cache_actions",
    "cache_host", "credential", "literal_credential", "cloud_user", "cloud_group", "cloud_policy", "cloud_policy_file",
    "oidc_provider", "cloud_account", "cloud_secret", "untrusted", "owner_key", "repo_key", "secret_key", "env_key",
    "runner_name_part", "runner_name_of_part", "runner_ref", "gitlab_project", "gitlab_pipeline", "gitlab_job",
    "gitlab_environment", "external_secret",
    "runner_name_part", "runner_name_of_part", "runner_ref", "k8s_node_pool", "k8s_service_account", "k8s_secret",
]


class IdError(ValueError):
    """A value cannot be part of a node id (it would not read back), or a string is not a graphkit id."""


class IdTooLong(IdError, LimitExceeded):
    """A value longer than the ``max_identifier_chars`` limit (:mod:`graphkit.limits`) was given for a part of
    an id: the message names the id kind, the part and the value's length, never the value (it may be a
    secret)."""


def _check_lengths(form: "IdForm", values: Mapping[str, object]) -> None:
    """Raise :class:`IdTooLong` when a value given for a part of ``form`` is longer than ``max_identifier_chars``
    (a part that is itself an id, a caller job, was checked when that id was built)."""
    cap = limits.latest().max_identifier_chars
    for key, value in values.items():
        n = len(value) if type(value) is str else len(str(value))
        if n > cap and key in form.parts and form.parts[key] is not JOB_REF:
            raise IdTooLong(f"{form.kind.value} id: " + limits.too_many(
                "max_identifier_chars", cap, f"{form.parts[key].what} of {n} characters"))


# --------------------------------------------------------------------------- forms

_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class IdForm:
    """One way of writing ids of a node kind.

    ``template``: literal text with ``{part}`` placeholders, e.g.
    ``secret:env:{repo}:{environment}:{name}``; ``parts`` maps each
    placeholder to its :class:`Part`; ``note`` is shown in the README.
    """

    kind: NodeKind
    name: str
    template: str
    parts: Mapping[str, Part] = field(default_factory=dict)
    note: str = ""

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        out, pos = [], 0
        for m in _FIELD.finditer(self.template):
            out.append(re.escape(self.template[pos:m.start()]))
            part = self.parts[m.group(1)]
            out.append(f"(?P<{m.group(1)}>{part.id_pattern or part.pattern})")
            pos = m.end()
        out.append(re.escape(self.template[pos:]))
        return re.compile("".join(out), re.S)

    @property
    def prefix(self) -> str:
        """The literal text before the first placeholder (``secret:env:``)."""
        return self.template.split("{", 1)[0]

    def build(self, /, **values: str) -> str:
        """The id of ``values`` (normalised).

        A literal credential in a value (a token-shaped runner name or label) is marked, ``***`` and the keyed
        fingerprint of its value (:func:`graphkit.redact.mark_tokens`), as in every node field: an id never
        holds one, and the same value gives the same id whichever source names it.

        Raises
        ------
        IdError
            when a value is missing or, once normalised, does not match its part; :class:`IdTooLong` when a value
            is longer than the ``max_identifier_chars`` limit.
        """
        _check_lengths(self, values)
        text = self.template
        for key, part in self.parts.items():
            if key not in values:
                raise IdError(f"{self.kind.value} id: missing {key}")
            given = str(values[key])
            value = part.normalize(given)
            # before normalising: the fingerprint of the value as written (case-folded where the platform folds
            # case, :attr:`Part.caseless`), as fields
            marked = mark_tokens(given, part.caseless)
            if not re.fullmatch(part.pattern, value, re.S) and not (REDACTED in value and re.fullmatch(
                    part.id_pattern or part.pattern, part.render(value), re.S)):  # else: a marked id read back
                raise IdError(f"{self.kind.value} id: {marked!r} is not a valid {part.what}")
            if marked is not given:
                value = part.normalize(marked)
                if not re.fullmatch(part.id_pattern or part.pattern, part.render(value), re.S):
                    raise IdError(f"{self.kind.value} id: {marked!r} holds a credential where the id needs the "
                                  f"{part.what}'s text")  # it would not read back (parse)
            text = text.replace("{" + key + "}", part.render(value), 1)
        return text

    def match(self, node_id: str) -> dict[str, str] | None:
        """The parts of ``node_id`` if it is written in this form, else None."""
        m = self._regex.fullmatch(node_id)
        if m is None:
            return None
        return {k: self.parts[k].decode(v) for k, v in m.groupdict().items()}

    @property
    def display(self) -> str:
        """The template as the README shows it (with its note)."""
        return self.template + (f" ({self.note})" if self.note else "")


def _form(kind: NodeKind, form: str, template: str, note: str = "", /, **parts: Part) -> IdForm:
    return IdForm(kind=kind, name=form, template=template, parts=parts, note=note)


K = NodeKind
#: Every id form, in documentation order; a kind's first form is its main one.  Parsing tries the forms in this
#: order, so a more specific form comes before a general one that would also match (environment targets).
#: ``{repo}`` is ``owner/name``.
ID_FORMS: tuple[IdForm, ...] = (
    _form(K.HOST, "host", "host:{hostname}", hostname=HOSTNAME),
    _form(K.HOST, "k8s-nodes", "host:k8s:{cluster}#{selector}", "Kubernetes nodes a pod template's nodeSelector "
          "picks (k=v,... sorted; * any node), https://kubernetes.io/docs/concepts/scheduling-eviction/"
          "assign-pod-node/", cluster=CLUSTER, selector=POOL),
    _form(K.RUNNER, "registration", "runner:{scope}/{name}", "scope: owner or owner/name; in the name, slash, percent sign, quotes and "
          "control characters are percent-encoded", scope=SCOPE, name=NAME),
    _form(K.RUNNER, "pool", "runner:inferred:{owner}:{labels}", "an inferred pool: labels lower-cased, sorted, "
          "joined by +", owner=OWNER, labels=LABELS),
    _form(K.RUNNER_GROUP, "group", "runner_group:{owner}/{group}", owner=OWNER, group=GROUP),
    _form(K.ORGANIZATION, "owner", "org:{owner}", owner=OWNER),
    _form(K.REPOSITORY, "repository", "repo:{repo}", repo=REPO),
    _form(K.REPOSITORY, "gitlab", "repo:gitlab:{project}", "a GitLab project, lower-cased", project=GL_PROJECT),
    _form(K.WORKFLOW, "workflow", "workflow:{repo}/{path}", repo=REPO, path=PATH),
    _form(K.WORKFLOW, "gitlab", "workflow:gitlab:{project}:{path}", "a GitLab project's pipeline configuration "
          "(root file)", project=GL_PROJECT, path=WF_PATH),
    _form(K.JOB, "job", "job:{repo}/{path}#{key}", repo=REPO, path=WF_PATH, key=JOB_KEY),
    _form(K.JOB, "gitlab", "job:gitlab:{project}:{path}#{name}", "a GitLab job of the pipeline whose root "
          "configuration is path", project=GL_PROJECT, path=WF_PATH, name=GL_JOB),
    _form(K.JOB, "observed", "job:observed:{repo}/{path}#{name}", "a job seen in the job history that no "
          "workflow job matches; in the name, percent sign, #, > and control characters are percent-encoded",
          repo=REPO, path=WF_PATH, name=JOB_NAME),
    _form(K.JOB, "called", "job:{caller}>{repo}/{path}#{key}", "a called workflow's job, per caller job",
          caller=JOB_REF, repo=REPO, path=WF_PATH, key=JOB_KEY),
    _form(K.SECRET, "org", "secret:org:{owner}:{name}", owner=OWNER, name=SECRET),
    _form(K.SECRET, "repo", "secret:repo:{repo}:{name}", repo=REPO, name=SECRET),
    _form(K.SECRET, "env", "secret:env:{repo}:{environment}:{name}", repo=REPO, environment=ENV, name=SECRET),
    _form(K.SECRET, "gitlab", "secret:gitlab:{path}:{name}:{scope}", "a GitLab CI/CD variable: instance host or "
          "host/group or project path, key (case-sensitive), environment scope (https://docs.gitlab.com/ci/variables/)",
          path=GL_PATH, name=GL_KEY, scope=GL_SCOPE),
    _form(K.SECRET, "unknown", "secret:{repo}:{name}", "scope unknown", repo=REPO, name=SECRET),
    _form(K.SECRET, "all", "secret:all:{repo}", "every secret visible, not enumerated", repo=REPO),
    _form(K.GITHUB_TOKEN, "token", "github_token:{job}", "the job id without job:", job=JOB_REF),
    _form(K.OIDC_IDENTITY, "oidc", "oidc:{job}", "the job id without job:", job=JOB_REF),
    _form(K.CLOUD_ROLE, "aws", "cloud_role:aws:{identifier}", "role ARN, or a pattern/expr:/key: identifier",
          identifier=TEXT),
    _form(K.CLOUD_ROLE, "gcp", "cloud_role:gcp:{identifier}", "service account or provider", identifier=TEXT),
    _form(K.CLOUD_ROLE, "azure", "cloud_role:azure:{identifier}", "client id", identifier=TEXT),
    _form(K.SIGNING_KEY, "key", "signing_key:{scheme}:{identifier}", scheme=WORD, identifier=TEXT),
    _form(K.DEPLOYMENT_TARGET, "environment", "target:environment:{repo}:{environment}", repo=REPO,
          environment=ENV),
    _form(K.DEPLOYMENT_TARGET, "gitlab_environment", "target:environment:gitlab:{project}:{environment}",
          "a GitLab project's environment, name as written", project=GL_PROJECT, environment=GL_ENV),
    _form(K.DEPLOYMENT_TARGET, "target", "target:{target_type}:{identifier}", target_type=WORD, identifier=TEXT),
    _form(K.CACHE, "actions", "cache:actions:{repo}", repo=REPO),
    _form(K.CACHE, "host", "cache:host:{hostname}:{path}", hostname=HOSTNAME, path=PATH),
    # a credential written in a repository's CI file: the value's keyed fingerprint, never the value; tried
    # before ``file`` (which would read ``literal`` as a host name)
    _form(K.CREDENTIAL, "literal_gitlab", "credential:literal:gitlab:{project}:{fingerprint}", "a credential "
          "written in a GitLab project's .gitlab-ci.yml (or a file it includes): its keyed fingerprint",
          project=GL_PROJECT, fingerprint=FINGERPRINT),
    _form(K.CREDENTIAL, "literal", "credential:literal:{repo}:{fingerprint}", "a credential written in a "
          "workflow or action file of the repository: its keyed fingerprint (graphkit.redact.fingerprint)",
          repo=REPO, fingerprint=FINGERPRINT),
    _form(K.CREDENTIAL, "file", "credential:{hostname}:{path}", hostname=HOSTNAME, path=PATH),
    _form(K.CLOUD_USER, "aws", "cloud_user:aws:{arn}", arn=ARN),
    _form(K.CLOUD_GROUP, "aws", "cloud_group:aws:{arn}", arn=ARN),
    _form(K.CLOUD_POLICY, "aws", "cloud_policy:aws:{arn}", arn=ARN),
    _form(K.CLOUD_POLICY, "file", "cloud_policy:file:{path}", "a policy document file[#resource]", path=PATH),
    _form(K.OIDC_PROVIDER, "aws", "oidc_provider:aws:{arn}", arn=ARN),
    _form(K.CLOUD_ACCOUNT, "aws", "cloud_account:aws:{account}", account=ACCOUNT),
    _form(K.CLOUD_SECRET, "aws", "cloud_secret:aws:{arn}", "secret or parameter ARN, a pattern with *", arn=ARN),
    _form(K.CLOUD_SECRET, "external", "cloud_secret:{provider}:{path}", "a secret of an external secrets "
          "provider a GitLab job requests (vault, azure_key_vault, gcp_secret_manager, aws_secrets_manager), "
          "path as written", provider=WORD, path=TEXT),
    _form(K.UNTRUSTED, "actor", "untrusted:{actor}:{owner}", "fork-pr, comment or org-member, per owner "
          "(graphkit/resolve/untrusted.py)", actor=WORD, owner=OWNER),
    _form(K.K8S_SERVICE_ACCOUNT, "sa", "k8s_sa:{cluster}#{namespace}/{name}", "https://kubernetes.io/docs/concepts/"
          "security/service-accounts/", cluster=CLUSTER, namespace=NAMESPACE, name=OBJECT),
    _form(K.K8S_SECRET, "secret", "k8s_secret:{cluster}#{namespace}/{name}", "names and keys only, "
          "https://kubernetes.io/docs/concepts/configuration/secret/", cluster=CLUSTER, namespace=NAMESPACE,
          name=OBJECT),
)
del K

#: Forms of each node kind, main form first.
FORMS_BY_KIND: dict[NodeKind, tuple[IdForm, ...]] = {
    k: tuple(f for f in ID_FORMS if f.kind is k) for k in NodeKind
}
#: The literal prefix of every id of a kind (``repo:``, ``target:``...): what ids start with.
PREFIXES: dict[NodeKind, str] = {k: forms[0].template.split(":", 1)[0] + ":" for k, forms in FORMS_BY_KIND.items()}
_FORM = {(f.kind, f.name): f for f in ID_FORMS}


class ParsedId(NamedTuple):
    """What :func:`parse` reads from an id: ``kind``, ``form`` (its name) and ``parts``."""

    kind: NodeKind
    form: str
    parts: dict[str, str]


def parse(node_id: str) -> ParsedId:
    """Read a node id back into kind, form and parts.

    Raises
    ------
    IdError
        when ``node_id`` is written in no form.

    >>> parse("job:acme/app/.github/workflows/ci.yml#call>acme/lib/.github/workflows/r.yml#build").parts["caller"]
    'job:acme/app/.github/workflows/ci.yml#call'
    """
    for f in ID_FORMS:
        parts = f.match(node_id)
        if parts is not None:
            return ParsedId(f.kind, f.name, parts)
    raise IdError(f"{node_id!r} is not a graphkit node id")


def canonical(node_id: str, kind: NodeKind) -> str:
    """The id of the node ``node_id`` names, as the constructor of ``kind`` writes it from the parts it reads
    (a caller job inside an id made canonical likewise): ``node_id`` itself for every id graphkit builds.  A graph
    file edited by hand may hold ``repo:ACME/app`` (``repo:acme/app``), a trailing space or a path with ``..``
    segments: the same node under a second id.

    Raises
    ------
    IdError
        when ``node_id`` is written in no form of ``kind``, or its parts cannot be an id (:class:`IdTooLong`...).

    >>> canonical("repo:ACME/app", NodeKind.REPOSITORY)
    'repo:acme/app'
    >>> canonical("workflow:acme/app/.github/workflows/../workflows/ci.yml", NodeKind.WORKFLOW)
    'workflow:acme/app/.github/workflows/ci.yml'
    """
    for f in FORMS_BY_KIND[kind]:
        parts = f.match(node_id)
        if parts is not None:
            for key, part in f.parts.items():
                if part is JOB_REF:
                    parts[key] = canonical(parts[key], NodeKind.JOB)
            # not through the id cache: a graph file's every id is checked once, and the cache would keep 65,536
            # of them alive after the load (~40 MB at 10^6 edges)
            return _FORM[(kind, f.name)].build(**parts)
    raise IdError(f"not written in any {kind.value} id form")


def kind_of(node_id: str) -> NodeKind:
    """The node kind an id names (:func:`parse`; raises :class:`IdError` likewise)."""
    return parse(node_id).kind


def id_format(kind: NodeKind) -> str:
    """The README's id column for ``kind``: its forms' templates joined by `` | ``."""
    return " | ".join(f.display for f in FORMS_BY_KIND[kind])


def _build(kind: NodeKind, form: str, /, **values: str) -> str:
    cap = limits.latest().max_identifier_chars  # checked before the cache: a cached id may predate a lower limit
    for v in values.values():
        if type(v) is not str or len(v) > cap:
            return _FORM[(kind, form)].build(**values)  # another type (str() of it), or too long: not cached
    return _built(kind, form, tuple(values.items()))


@lru_cache(maxsize=1 << 16)
def _built(kind: NodeKind, form: str, values: tuple[tuple[str, str], ...]) -> str:
    """:meth:`IdForm.build`, once per distinct value: a build asks for the same repository, runner or secret id
    thousands of times, and each build normalises and checks every part."""
    return _FORM[(kind, form)].build(**dict(values))


# --------------------------------------------------------------------------- typed constructors


def host(hostname: str) -> str:
    """``host:{hostname}`` (lower-cased)."""
    return _build(NodeKind.HOST, "host", hostname=hostname)


def runner(scope: str, name: str) -> str:
    """A runner registration: ``runner:{owner}[/{repo}]/{name}`` (scope lower-cased, name as registered)."""
    return _build(NodeKind.RUNNER, "registration", scope=scope, name=name)


def runner_ref(scope: str, name: str) -> str:
    """The ``scope/name`` reference of a runner registration (the inventory's ``readable_by``, ``read_by``...):
    scope lower-cased, name as :func:`runner_name_part` writes it, so that it splits at its last ``/``.

    >>> runner_ref("Acme", "evil/../x")
    'acme/evil%2F..%2Fx'
    """
    return runner(scope, name).removeprefix(PREFIXES[NodeKind.RUNNER])


def pool_labels(labels: Iterable[str], self_hosted: bool = True) -> list[str]:
    """An inferred pool's labels: lower-cased, sorted, ``self-hosted`` included (GitHub gives every self-hosted
    runner that label); ``self_hosted`` False: the labels alone (GitLab, whose runners have no implicit tag: a
    runner takes a job when it has all the job's tags, https://docs.gitlab.com/ci/yaml/#tags).

    >>> pool_labels(["Linux", "X64"]), pool_labels(["Linux"], self_hosted=False)
    (['linux', 'self-hosted', 'x64'], ['linux'])
    """
    return sorted({x.strip().lower() for x in labels} | ({"self-hosted"} if self_hosted else set()))


def runner_pool(owner: str, labels: Iterable[str], self_hosted: bool = True) -> str:
    """An inferred runner pool: ``runner:inferred:{owner}:{label+label...}`` (see :func:`pool_labels`)."""
    return _build(NodeKind.RUNNER, "pool", owner=owner, labels="+".join(pool_labels(labels, self_hosted)))


def runner_group(owner: str, group: str) -> str:
    """``runner_group:{owner}/{group}`` (both lower-cased)."""
    return _build(NodeKind.RUNNER_GROUP, "group", owner=owner, group=group)


def organization(owner: str) -> str:
    """``org:{owner}`` (lower-cased)."""
    return _build(NodeKind.ORGANIZATION, "owner", owner=owner)


def repository(full_name: str) -> str:
    """``repo:{owner}/{name}`` (lower-cased)."""
    return _build(NodeKind.REPOSITORY, "repository", repo=full_name)


def workflow(repo: str, path: str) -> str:
    """``workflow:{owner}/{repo}/{path}`` (path as in the checkout)."""
    return _build(NodeKind.WORKFLOW, "workflow", repo=repo, path=path)


def job(repo: str, path: str, key: str, caller: str | None = None) -> str:
    """A job: ``job:{owner}/{repo}/{path}#{job}``; a called workflow's job under ``caller`` (a job id):
    ``{caller}>{owner}/{repo}/{path}#{job}``."""
    if caller is None:
        return _build(NodeKind.JOB, "job", repo=repo, path=path, key=key)
    return _build(NodeKind.JOB, "called", caller=caller, repo=repo, path=path, key=key)


def gitlab_project(project: str) -> str:
    """A GitLab project: ``repo:gitlab:{group/.../project}`` (lower-cased; GitLab docs "Namespaces",
    https://docs.gitlab.com/user/namespace/).

    >>> gitlab_project("GNOME/GLib")
    'repo:gitlab:gnome/glib'
    """
    return _build(NodeKind.REPOSITORY, "gitlab", project=project)


def gitlab_pipeline(project: str, config_file: str) -> str:
    """A GitLab project's pipeline configuration (its root file, ``.gitlab-ci.yml`` by default,
    https://docs.gitlab.com/ci/pipelines/settings/#specify-a-custom-cicd-configuration-file):
    ``workflow:gitlab:{project}:{path}``."""
    return _build(NodeKind.WORKFLOW, "gitlab", project=project, path=config_file)


def gitlab_job(project: str, config_file: str, name: str) -> str:
    """A GitLab job: ``job:gitlab:{project}:{root config file}#{job name}``.  Job names are unique in a
    pipeline's merged configuration (a later definition of a name replaces the earlier one,
    https://docs.gitlab.com/ci/yaml/includes/#override-included-configuration-values), so the pipeline's root
    file and the name identify the job; the file that defines it is evidence.

    >>> gitlab_job("gitlab-org/gitlab-runner", ".gitlab-ci.yml", "unit test 1/2")
    'job:gitlab:gitlab-org/gitlab-runner:.gitlab-ci.yml#unit test 1/2'
    >>> parse(gitlab_job("A/b/C", ".gitlab-ci.yml", "x#y:z")).parts["name"]
    'x#y:z'
    """
    return _build(NodeKind.JOB, "gitlab", project=project, path=config_file, name=name)


def gitlab_environment(project: str, name: str) -> str:
    """A GitLab project's environment (https://docs.gitlab.com/ci/environments/):
    ``target:environment:gitlab:{project}:{name}`` (project lower-cased, name as written).

    >>> gitlab_environment("Acme/Web", "review/$CI_COMMIT_REF_SLUG")
    'target:environment:gitlab:acme/web:review/$CI_COMMIT_REF_SLUG'
    """
    return _build(NodeKind.DEPLOYMENT_TARGET, "gitlab_environment", project=project, environment=name)


def external_secret(provider: str, path: str) -> str:
    """A secret of an external provider a GitLab job requests (``secrets:``,
    https://docs.gitlab.com/ci/yaml/#secrets): ``cloud_secret:{provider}:{path}``.

    Raises
    ------
    IdError
        for a provider GitLab does not document, or ``aws`` (use :func:`cloud_secret` for ARNs).
    """
    if provider not in ("vault", "azure_key_vault", "gcp_secret_manager", "aws_secrets_manager"):
        raise IdError(f"cloud_secret id: unknown external secrets provider {provider!r}")
    return _build(NodeKind.CLOUD_SECRET, "external", provider=provider, path=path)
def job_observed(repo: str, path: str, name: str) -> str:
    """A job seen in the platform's job history that no workflow job of the checkouts matches:
    ``job:observed:{owner}/{repo}/{path}#{name}`` (``name``: GitHub's job ``name``, the display name, e.g.
    ``build (ubuntu-latest, 3.11)``; https://docs.github.com/en/rest/actions/workflow-jobs).

    >>> job_observed("Acme/App", ".github/workflows/ci.yml", "build (x, 1)")
    'job:observed:acme/app/.github/workflows/ci.yml#build (x, 1)'
    >>> parse(job_observed("acme/app", "ci.yml", "a>b#c")).parts["name"]
    'a>b#c'
    """
    return _build(NodeKind.JOB, "observed", repo=repo, path=path, name=name)


def github_token(job_id: str) -> str:
    """The GITHUB_TOKEN of a job: ``github_token:{job id without job:}``."""
    return _build(NodeKind.GITHUB_TOKEN, "token", job=job_id)


def oidc_identity(job_id: str) -> str:
    """The OIDC identity of a job: ``oidc:{job id without job:}``."""
    return _build(NodeKind.OIDC_IDENTITY, "oidc", job=job_id)


def secret_org(owner: str, name: str) -> str:
    """An organization secret: ``secret:org:{owner}:{NAME}``."""
    return _build(NodeKind.SECRET, "org", owner=owner, name=name)


def secret_repo(repo: str, name: str) -> str:
    """A repository secret: ``secret:repo:{owner}/{repo}:{NAME}``."""
    return _build(NodeKind.SECRET, "repo", repo=repo, name=name)


def secret_env(repo: str, environment_name: str, name: str) -> str:
    """An environment secret: ``secret:env:{owner}/{repo}:{environment}:{NAME}``."""
    return _build(NodeKind.SECRET, "env", repo=repo, environment=environment_name, name=name)


def secret_gitlab(path: str, key: str, environment_scope: str = "*") -> str:
    """A GitLab CI/CD variable: ``secret:gitlab:{host[/full path]}:{KEY}:{environment scope}``.

    >>> secret_gitlab("GitLab.example.com/Acme/App", "AWS_KEY", "review/*")
    'secret:gitlab:gitlab.example.com/acme/app:AWS_KEY:review/*'
    """
    return _build(NodeKind.SECRET, "gitlab", path=path, name=key, scope=environment_scope)


def secret_unknown(repo: str, name: str) -> str:
    """A referenced secret whose scope is unknown: ``secret:{owner}/{repo}:{NAME}``."""
    return _build(NodeKind.SECRET, "unknown", repo=repo, name=name)


def secret_all(repo: str) -> str:
    """Every secret visible to a repository, not enumerated: ``secret:all:{owner}/{repo}``."""
    return _build(NodeKind.SECRET, "all", repo=repo)


def cloud_role(provider: str, identifier: str) -> str:
    """``cloud_role:{aws|gcp|azure}:{identifier}`` (ARN, service account, client id or pattern, as written)."""
    if provider not in ("aws", "gcp", "azure"):
        raise IdError(f"cloud_role id: unknown provider {provider!r}")
    return _build(NodeKind.CLOUD_ROLE, provider, identifier=identifier)


def signing_key(scheme: str, identifier: str) -> str:
    """``signing_key:{scheme}:{identifier}``."""
    return _build(NodeKind.SIGNING_KEY, "key", scheme=scheme, identifier=identifier)


def environment(repo: str, name: str) -> str:
    """A deployment environment: ``target:environment:{owner}/{repo}:{environment}`` (lower-cased)."""
    return _build(NodeKind.DEPLOYMENT_TARGET, "environment", repo=repo, environment=name)


def target(target_type: str, identifier: str) -> str:
    """Any other deployment target: ``target:{target_type}:{identifier}``.

    Raises
    ------
    IdError
        for ``environment`` (use :func:`environment`, which normalises the name).
    """
    if target_type.strip().lower() == "environment":
        raise IdError("environment targets are built with ids.environment(repo, name)")
    if "://" in identifier:  # an id never holds a URL credential (graphkit.redact)
        identifier = strip_url_credentials(identifier).url
    return _build(NodeKind.DEPLOYMENT_TARGET, "target", target_type=target_type, identifier=identifier)


def cache_actions(repo: str) -> str:
    """A repository's GitHub Actions cache: ``cache:actions:{owner}/{repo}``."""
    return _build(NodeKind.CACHE, "actions", repo=repo)


def cache_host(hostname: str, path: str) -> str:
    """A host-local cache folder: ``cache:host:{hostname}:{path}``."""
    return _build(NodeKind.CACHE, "host", hostname=hostname, path=path)


def credential(hostname: str, path: str) -> str:
    """A credential file on a host: ``credential:{hostname}:{path}``."""
    return _build(NodeKind.CREDENTIAL, "file", hostname=hostname, path=path)


def literal_credential(repository: str, fingerprint: str, platform: str = "github") -> str:
    """A credential written literally in a repository's CI file, by the keyed fingerprint of its value (never
    the value): ``credential:literal:{owner}/{repo}:{fingerprint}``, for a GitLab project
    ``credential:literal:gitlab:{project}:{fingerprint}``."""
    if platform == "gitlab":
        return _build(NodeKind.CREDENTIAL, "literal_gitlab", project=repository, fingerprint=fingerprint)
    return _build(NodeKind.CREDENTIAL, "literal", repo=repository, fingerprint=fingerprint)


def cloud_user(arn: str) -> str:
    """``cloud_user:aws:{user arn}``."""
    return _build(NodeKind.CLOUD_USER, "aws", arn=arn)


def cloud_group(arn: str) -> str:
    """``cloud_group:aws:{group arn}``."""
    return _build(NodeKind.CLOUD_GROUP, "aws", arn=arn)


def cloud_policy(arn: str) -> str:
    """A managed policy: ``cloud_policy:aws:{policy arn}``."""
    return _build(NodeKind.CLOUD_POLICY, "aws", arn=arn)


def cloud_policy_file(path: str, resource: str | None = None) -> str:
    """A policy document file (or one resource of a template): ``cloud_policy:file:{path}[#{resource}]``."""
    return _build(NodeKind.CLOUD_POLICY, "file", path=path if resource is None else f"{path}#{resource}")


def oidc_provider(arn: str) -> str:
    """``oidc_provider:aws:{provider arn}``."""
    return _build(NodeKind.OIDC_PROVIDER, "aws", arn=arn)


def cloud_account(account: str) -> str:
    """``cloud_account:aws:{account id}``."""
    return _build(NodeKind.CLOUD_ACCOUNT, "aws", account=account)


def cloud_secret(arn: str) -> str:
    """A Secrets Manager secret or SSM parameter (or a pattern of them): ``cloud_secret:aws:{arn}``."""
    return _build(NodeKind.CLOUD_SECRET, "aws", arn=arn)


def untrusted(actor: str, owner: str) -> str:
    """``untrusted:{actor}:{owner}``: people who can run code in ``owner``'s jobs without being trusted.

    ``actor``: ``fork-pr`` (anyone who can open a pull request from a fork),
    ``comment`` (anyone who can comment on an issue or pull request),
    ``org-member`` (members with write access); see :mod:`graphkit.untrusted`
    and GitHub docs "Security hardening for GitHub Actions",
    https://docs.github.com/en/actions/reference/security/secure-use.

    >>> untrusted("fork-pr", "Acme")
    'untrusted:fork-pr:acme'
    """
    return _build(NodeKind.UNTRUSTED, "actor", actor=actor, owner=owner)


def k8s_node_pool(cluster: str, selector: Mapping[str, str] | None) -> str:
    """The nodes of a Kubernetes cluster that a pod's ``nodeSelector`` picks: ``host:k8s:{cluster}#{k=v,...}``
    (labels sorted; ``*`` when the pod selects no node label, i.e. any node).  ``cluster`` is the cluster's
    deployment target identifier (API server URL or name).

    >>> k8s_node_pool("https://k8s.example:6443", {"pool": "ci", "arch": "amd64"})
    'host:k8s:https://k8s.example:6443#arch=amd64,pool=ci'
    >>> k8s_node_pool("prod", None)
    'host:k8s:prod#*'
    """
    text = ",".join(f"{k}={v}" for k, v in sorted((selector or {}).items())) or "*"
    return _build(NodeKind.HOST, "k8s-nodes", cluster=cluster, selector=text)


def k8s_service_account(cluster: str, namespace: str, name: str) -> str:
    """A Kubernetes service account: ``k8s_sa:{cluster}#{namespace}/{name}``.

    >>> k8s_service_account("prod", "arc-runners", "runner")
    'k8s_sa:prod#arc-runners/runner'
    """
    return _build(NodeKind.K8S_SERVICE_ACCOUNT, "sa", cluster=cluster, namespace=namespace, name=name)


def k8s_secret(cluster: str, namespace: str, name: str) -> str:
    """A Kubernetes Secret (names and keys only): ``k8s_secret:{cluster}#{namespace}/{name}``."""
    return _build(NodeKind.K8S_SECRET, "secret", cluster=cluster, namespace=namespace, name=name)
