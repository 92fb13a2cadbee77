"""How each name is written inside a node id (:mod:`graphkit.model.ids` builds ids from these; :class:`Part`: one
placeholder of an id template, and the parts the id forms use): GitHub's
case-insensitive owners, repositories and environments lower-cased, secret names upper-cased, runner and job
display names (any text) percent-encoded where they would break the id's separators."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Part", "env_key", "job_name_part", "owner_key", "repo_key", "runner_name_of_part", "runner_name_part",
           "secret_key"]


def owner_key(owner: str) -> str:
    """GitHub owner (organization or user) as ids write it: case-insensitive, lower-cased."""
    return owner.strip().lower()


def repo_key(full_name: str) -> str:
    """``Owner/Repo`` as ids write it (GitHub names are case-insensitive)."""
    return full_name.strip().lower()


def secret_key(name: str) -> str:
    """A secret name as ids write it (GitHub stores secret names upper-case)."""
    return name.strip().upper()


def env_key(name: str) -> str:
    """A deployment environment name as ids write it (GitHub: not case sensitive)."""
    return name.strip().lower()


def _keep(text: str) -> str:
    return text.strip()


#: Characters of a runner name written as ``%XX`` (UTF-8) in ids and ``scope/name`` references: ``%`` itself,
#: ``/`` (the scope separator), backslash and quotes; every other non-printable character (control characters
#: such as newline and ESC, bidi overrides) is escaped too (:meth:`str.isprintable`).
_NAME_ESCAPED = frozenset('%/\\"\'`')


def runner_name_part(name: str) -> str:
    """A runner name as ids and ``scope/name`` references write it: verbatim when it is an ordinary name,
    else with ``%``, ``/``, backslash, quotes and non-printable characters percent-encoded (UTF-8), and a name of
    dots only (``.``, ``..``) fully encoded.  The runner node keeps the name verbatim (``name``).

    A runner registration's name is whatever its ``.runner`` (``agentName``) or GitLab ``config.toml`` says,
    i.e. what whoever wrote the file chose: it must never stop the registration from becoming a node.

    >>> runner_name_part("build-01"), runner_name_part("evil/../x"), runner_name_part('a"b\\x1b\\n'), runner_name_part("..")
    ('build-01', 'evil%2F..%2Fx', 'a%22b%1B%0A', '%2E%2E')
    """
    if name and set(name) == {"."}:
        return "%2E" * len(name)
    return "".join(c if c.isprintable() and c not in _NAME_ESCAPED
                   else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass")) for c in name)


def runner_name_of_part(part: str) -> str:
    """The runner name a :func:`runner_name_part` writes (inverse; an ordinary name is returned as is).

    >>> runner_name_of_part("evil%2F..%2Fx")
    'evil/../x'
    """
    return urllib.parse.unquote(part, errors="surrogatepass") if "%" in part else part


def job_name_part(name: str) -> str:
    """A job display name as observed job ids write it: :func:`runner_name_part`, with ``#`` and ``>`` also
    percent-encoded (they separate the parts of job ids); read back with :func:`runner_name_of_part`.

    >>> job_name_part("build (ubuntu, 3.11)"), job_name_part("a#b>c")
    ('build (ubuntu, 3.11)', 'a%23b%3Ec')
    """
    return runner_name_part(name).replace("#", "%23").replace(">", "%3E")


# --------------------------------------------------------------------------- parts


@dataclass(frozen=True)
class Part:
    """One placeholder of an id template.

    ``normalize``: applied once to the value given to a constructor (platform
    case rules).  ``pattern``: the regular expression the normalised value
    must match in full (else :class:`IdError`).  ``render`` / ``decode``: how
    the value is written in the id and read back, and ``id_pattern`` how
    :func:`parse` finds it there (default ``pattern``); all three differ from
    the identity only for job references, written without ``job:``.
    """

    what: str
    normalize: Callable[[str], str]
    pattern: str
    render: Callable[[str], str] = _keep
    decode: Callable[[str], str] = _keep
    id_pattern: str | None = None
    #: the platform compares the value case-insensitively: a credential in it is marked case-folded
    #: (:func:`graphkit.redact.mark_tokens` ``fold``), as the node fields that hold it are
    caseless: bool = False


OWNER = Part("owner", owner_key, r"[^/:]+", caseless=True)
REPO = Part("owner/name", repo_key, r"[^/:]+/[^/:]+", caseless=True)
SCOPE = Part("owner or owner/name", repo_key, r"[^/:]+(?:/[^/:]+)?", caseless=True)
NAME = Part("runner name", _keep, r".+", render=lambda s: runner_name_part(s), decode=lambda s: runner_name_of_part(s),
            id_pattern=r"[^/]+")
GROUP = Part("group name", owner_key, r".+", caseless=True)
ENV = Part("environment name", env_key, r".+", caseless=True)
SECRET = Part("secret name", secret_key, r"[^:]+")
HOSTNAME = Part("host name", lambda s: s.strip().lower(), r"[^:]+")
def _path_key(path: str) -> str:
    """A path as ids write it: as written (stripped), with ``.`` segments dropped and ``..`` segments resolved
    against the segment before them, so that one file has one id (``a/./b`` and ``a/x/../b`` are ``a/b``); a
    leading ``..`` (nothing to resolve against), a leading or trailing ``/``, ``~`` and repeated ``/`` are kept.

    >>> _path_key(".github/workflows/../workflows/./ci.yml"), _path_key("/opt/_work/"), _path_key("../x")
    ('.github/workflows/ci.yml', '/opt/_work/', '../x')
    """
    path = path.strip()
    if "." not in path or ("/./" not in f"/{path}/" and "/../" not in f"/{path}/"):
        return path
    out: list[str] = []
    for seg in path.split("/"):
        if seg == "." and out:
            continue
        if seg == ".." and out and out[-1] not in ("", "..", "."):
            out.pop()
            continue
        out.append(seg)
    if out and out[0] == ".":
        out.pop(0)
    return "/".join(out) or "."


PATH = Part("path", _path_key, r".+")
WF_PATH = Part("workflow path", _path_key, r"[^#]+")
#: A GitHub Actions job id (the key under ``jobs:``) as written, never trimmed: it "must start with a letter or
#: ``_`` and contain only alphanumeric characters, ``-``, or ``_``"; GitHub refuses a workflow file with any other
#: (https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_id).  Keys
#: outside it (``"a "``, ``"a\\n"``, ``x</script>``) are refused here, so two keys never become one job.
#: A job key as GitHub allows it; in an id, a credential in it is marked ``***`` and 16 hex digits
#: (:func:`graphkit.redact.mark_tokens`), which the id reads back.
JOB_KEY = Part("job key", str, r"[A-Za-z_][A-Za-z0-9_-]*",
               id_pattern=r"(?:[A-Za-z_]|\*\*\*[0-9a-f]{16})(?:[A-Za-z0-9_-]|\*\*\*[0-9a-f]{16})*")
LABELS = Part("label set", _keep, r".+", caseless=True)
TEXT = Part("identifier", _keep, r".+")
WORD = Part("type", lambda s: s.strip().lower(), r"[a-z0-9_-]+")
ACCOUNT = Part("account id", _keep, r"\d{12}|\*|aws|\$\{[^}]+\}")
ARN = Part("ARN", _keep, r"arn:.+")
GL_PATH = Part("GitLab instance host, or host/full path of a group or project", lambda s: s.strip().lower(),
               r"[^:/\s]+(?:/[^:/\s]+)*")
GL_KEY = Part("CI/CD variable key", _keep, r"[A-Za-z0-9_]+")
GL_SCOPE = Part("environment scope", _keep, r"[^:\n]+")
#: A GitLab project path ``GROUP/SUBGROUP/PROJECT`` (one or more groups).  GitLab resolves namespace and
#: project paths case-insensitively (a differently cased path redirects to the project,
#: https://gitlab.com/gitlab-org/gitlab-foss/-/merge_requests/1330; the ``project_path`` OIDC claim is
#: compared case-insensitively by relying parties, https://github.com/pypi/warehouse/pull/15512): lower-cased.
GL_PROJECT = Part("GitLab project path GROUP[/SUBGROUP...]/PROJECT", lambda s: s.strip().strip("/").lower(),
                  r"[^/:#\s]+(?:/[^/:#\s]+)+", caseless=True)
#: A keyed fingerprint of a secret value (:func:`graphkit.redact.fingerprint`: lower-case hex), never the value.
FINGERPRINT = Part("keyed fingerprint", lambda s: s.strip().lower(), r"[0-9a-f]{8,64}")
#: A GitLab job name: any text (``rspec:unit 1/2`` is a valid name, https://docs.gitlab.com/ci/jobs/#job-names),
#: written last in the id, after the first ``#``.
GL_JOB = Part("GitLab job name", _keep, r".+")
#: A GitLab environment name, kept as written (``review/$CI_COMMIT_REF_SLUG`` is a name,
#: https://docs.gitlab.com/ci/environments/#create-a-dynamic-environment).
GL_ENV = Part("GitLab environment name", _keep, r".+")
JOB_NAME = Part("job display name", _keep, r".+", render=lambda s: job_name_part(s),
                decode=lambda s: runner_name_of_part(s), id_pattern=r"[^#>]+")
#: Kubernetes (issue 15): a cluster as its deployment target identifier (the API server URL, or a name), a
#: namespace (a DNS-1123 label, https://kubernetes.io/docs/concepts/overview/working-with-objects/names/) and an
#: object name (DNS-1123 subdomain) as written; a node pool as its node selector (``k=v,k=v`` sorted, ``*``: any)
CLUSTER = Part("cluster", _keep, r"[^#]+")
NAMESPACE = Part("namespace", _keep, r"[^/#]+")
OBJECT = Part("object name", _keep, r"[^/#]+")
POOL = Part("node selector", _keep, r".+")
JOB_REF = Part("job id", _keep, r"job:.+", render=lambda s: s.removeprefix("job:"), decode=lambda s: "job:" + s,
               id_pattern=r".+")
