"""How each name is written inside a node id (:mod:`graphkit.model.ids` builds ids from these): GitHub's
case-insensitive owners, repositories and environments lower-cased, secret names upper-cased, runner and job
display names (any text) percent-encoded where they would break the id's separators."""

from __future__ import annotations

import urllib.parse

__all__ = ["env_key", "job_name_part", "owner_key", "repo_key", "runner_name_of_part", "runner_name_part",
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
