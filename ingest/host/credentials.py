"""Pure parsers of credential files: what a file gives access to, never its secret values.

Each parser takes the file's text and returns :class:`CredentialFacts`:
whether it holds credential material, access descriptors (``profile:deploy``,
``registry:ghcr.io``...) and grants as ``(edge kind, node id)`` pairs, the
ids built by :mod:`graphkit.model.ids` (``target:registry:ghcr.io``,
``target:package_index:registry.npmjs.org``, ``target:cluster:https://...``).
A parse error is a ``ValueError`` whose message names no content (parsers
that would echo a line, like :mod:`configparser`, are wrapped).
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit


from graphkit.errors import InputError
from graphkit.model import ids
from graphkit.redact import strip_url_credentials
from ingest._kubeconfig import kubeconfig_users
from ingest._yaml import load_json, load_yaml

__all__ = ["CredentialFacts", "assumes_roles", "aws_config_facts", "is_private_key", "parse_aws_config",
           "parse_aws_credentials", "parse_docker_config", "parse_gh_hosts", "parse_git_credentials",
           "parse_kube_config", "parse_npmrc", "parse_pypirc"]


@dataclass
class CredentialFacts:
    """Non-secret facts of a credential file.

    ``present``: the file holds credential material (else it is not
    recorded).  ``access``: descriptors such as ``profile:deploy`` or
    ``registry:ghcr.io``.  ``grants``: ``(edge kind, node id)`` pairs, the
    inventory's ``grants``.  ``roles``: AWS role ARNs named by profiles.
    """

    credential_type: str
    present: bool = False
    access: list[str] = field(default_factory=list)
    grants: list[tuple[str, str]] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    #: the file itself holds credential material (False: it only points to roles)
    holds_keys: bool = True
    #: keyed hash of the credentials removed from URLs it names (None: no URL held one)
    url_credential: str | None = None
    #: lines (1-based) of ``role_arn`` values that are not IAM role ARNs (no grant made; the value never kept)
    bad_roles: list[int] = field(default_factory=list)

    def clean_url(self, url: str) -> str:
        """``url`` without userinfo or token parameters (:func:`graphkit.redact.strip_url_credentials`); what was
        removed is remembered as :attr:`url_credential`."""
        clean = strip_url_credentials(url)
        if clean.fingerprint and self.url_credential is None:
            self.url_credential = clean.fingerprint
        return clean.url


def _ini(text: str) -> configparser.ConfigParser:
    """Lenient INI parse; a parse error names no content (configparser would echo the line)."""
    cp = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00none")
    try:
        cp.read_string(text)
    except configparser.Error:
        raise ValueError("not valid INI") from None
    return cp


_AWS_SECRET_KEYS = ("aws_secret_access_key", "aws_session_token", "credential_process", "sso_start_url",
                    "sso_session")


def parse_aws_credentials(text: str) -> CredentialFacts:
    """``~/.aws/credentials`` (pure): one ``profile:NAME`` per profile holding keys or a role.

    The AWS CLI reads ``role_arn`` from this file as well as from ``config``
    (AWS CLI User Guide, "Configuration and credential file settings").

    >>> parse_aws_credentials("[default]\\naws_access_key_id = placeholder\\naws_secret_access_key = x\\n").access
    ['profile:default']
    >>> parse_aws_credentials("[deploy]\\nrole_arn = arn:aws:iam::111122223333:role/d\\nsource_profile = a\\n").roles
    ['arn:aws:iam::111122223333:role/d']

    Raises
    ------
    ValueError
        not INI (the message names no content).
    """
    facts = CredentialFacts("aws")
    cp = _ini(text)
    lines = _key_lines(text, "role_arn")
    for name in cp.sections():
        sec = {k.lower(): v for k, v in cp.items(name)}
        keys = any(k in sec for k in _AWS_SECRET_KEYS + ("aws_access_key_id",))
        role = _role_arn(sec, facts, lines.get(name))
        if keys:
            facts.present = True
        if role:
            facts.roles.append(role)
        if keys or role:
            facts.access.append(f"profile:{name}")
    return facts


#: An IAM role ARN, ``arn:PARTITION:iam::ACCOUNT:role/PATH/NAME``: the account id is 12 digits, the partition
#: ``aws``, ``aws-cn``, ``aws-us-gov``... (IAM User Guide, "IAM identifiers",
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns; AWS Account
#: Management, "View AWS account identifiers", https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-identifiers.html).
#: The inventory reader checks the same form (``ingest.runner_inventory.grants``).
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:role/[\x21-\x7e]+")


def _key_lines(text: str, key: str) -> dict[str, int]:
    """Section name -> line (1-based) of the last ``key = ...`` line in it, as :mod:`configparser` reads an INI
    file (a key starts its line; the last of repeated keys wins; names are case-insensitive) (pure).

    >>> _key_lines("[a]\\nrole_arn = x\\n[profile b]\\n  cont\\nROLE_ARN: y\\n", "role_arn")
    {'a': 2, 'profile b': 5}
    """
    out: dict[str, int] = {}
    section = None
    pattern = re.compile(rf"{re.escape(key)}\s*[=:]", re.IGNORECASE)
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("["):
            section = line.strip()[1:].split("]", 1)[0].strip()
        elif section is not None and pattern.match(line):
            out[section] = n
    return out


def _role_arn(section: dict[str, str], facts: CredentialFacts, line: int | None) -> str | None:
    """The ``role_arn`` of a profile section when it is an IAM role ARN (:data:`_ROLE_ARN`); a value set to
    anything else is recorded in ``facts.bad_roles`` by its line (0 when unknown), never by value."""
    role = section.get("role_arn", "").strip()
    if not role:
        return None
    if _ROLE_ARN.fullmatch(role):
        return role
    facts.bad_roles.append(line or 0)
    return None


def parse_aws_config(text: str) -> CredentialFacts:
    """``~/.aws/config`` (pure): profiles, role ARNs (``assumes_role`` grants), keys or credential sources.

    ``present`` is True when the file itself holds credential material
    (keys, ``credential_process``, SSO); role ARNs are returned in ``roles``
    whatever the file holds.

    >>> f = parse_aws_config("[profile ci]\\nrole_arn = arn:aws:iam::111122223333:role/ci\\nsource_profile = default\\n")
    >>> f.present, f.access, f.roles
    (False, ['profile:ci'], ['arn:aws:iam::111122223333:role/ci'])
    """
    facts = CredentialFacts("aws")
    cp = _ini(text)
    lines = _key_lines(text, "role_arn")
    for section in cp.sections():
        name = section.removeprefix("profile ").strip()
        sec = {k.lower(): v for k, v in cp.items(section)}
        if any(k in sec for k in _AWS_SECRET_KEYS):
            facts.present = True
        role = _role_arn(sec, facts, lines.get(section))
        if role:
            facts.roles.append(role)
            if "credential_source" in sec:  # instance metadata / environment: this file is the path
                facts.present = True
        if section.startswith("profile ") or section == "default":
            facts.access.append(f"profile:{name}")
    return facts


def aws_config_facts(text: str) -> CredentialFacts:
    """``~/.aws/config`` as the collector records it (pure): :func:`parse_aws_config`, and a config that names
    roles counts as present (a path to them) even without keys of its own (``holds_keys`` False).

    >>> f = aws_config_facts("[profile ci]\\nrole_arn = arn:aws:iam::111122223333:role/ci\\nsource_profile = a\\n")
    >>> f.present, f.holds_keys
    (True, False)
    """
    facts = parse_aws_config(text)
    facts.holds_keys = facts.present
    if not facts.present and facts.roles:
        facts.present = True  # roles named: a path to them even without keys here
    return facts


def assumes_roles(role_arns: list[str]) -> list[tuple[str, str]]:
    """``assumes_role`` grants to AWS roles (``cloud_role:aws:{arn}``), in order, without repeats.

    >>> assumes_roles(["arn:aws:iam::111122223333:role/d"])
    [('assumes_role', 'cloud_role:aws:arn:aws:iam::111122223333:role/d')]
    """
    return [("assumes_role", ids.cloud_role("aws", arn)) for arn in dict.fromkeys(role_arns)]


def _registry_host(name: str) -> str:
    """Docker registry key (credentials already removed) -> host (``https://index.docker.io/v1/`` -> ``docker.io``)."""
    try:
        host = urlsplit(name).netloc if "://" in name else name.split("/", 1)[0]
    except ValueError:  # an unclosed IPv6 bracket
        host = name.split("://", 1)[-1].split("/", 1)[0]
    host = host.lower()
    return "docker.io" if host in ("index.docker.io", "registry-1.docker.io", "registry.hub.docker.com") else host


def parse_docker_config(text: str) -> CredentialFacts:
    """``~/.docker/config.json`` (pure): registries with stored auth or a credential helper.

    Each registry gives ``registry:HOST`` and a ``publishes_to target:registry:HOST`` grant.

    >>> f = parse_docker_config('{"auths": {"ghcr.io": {"auth": "placeholder"}, "quay.io": {}}}')
    >>> f.present, f.access, f.grants
    (True, ['registry:ghcr.io'], [('publishes_to', 'target:registry:ghcr.io')])

    Raises
    ------
    ValueError
        not a JSON object.
    """
    try:
        doc = load_json(text, file="")
    except InputError as exc:  # invalid, or nested past max_depth (the reason names no content)
        raise ValueError(exc.reason) from None
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object")
    facts = CredentialFacts("docker")
    hosts: list[str] = []
    auths = doc.get("auths") if isinstance(doc.get("auths"), dict) else {}
    for reg, entry in auths.items():
        if isinstance(entry, dict) and any(entry.get(k) for k in ("auth", "identitytoken", "password", "registrytoken")):
            hosts.append(_registry_host(facts.clean_url(reg)))
    helpers = doc.get("credHelpers") if isinstance(doc.get("credHelpers"), dict) else {}
    hosts += [_registry_host(facts.clean_url(reg)) for reg in helpers]
    if isinstance(doc.get("credsStore"), str) and doc["credsStore"]:
        facts.present = True
        facts.access.append(f"store:{doc['credsStore']}")
    facts.present = facts.present or bool(hosts)
    for h in dict.fromkeys(h for h in hosts if h.strip()):  # a blank key holds a credential but names no registry
        facts.access.append(f"registry:{h}")
        facts.grants.append(("publishes_to", ids.target("registry", h)))
    return facts


_KUBE_SECRET_KEYS = ("token", "client-key-data", "client-key", "exec", "auth-provider", "password", "tokenFile")


def _list_of(value: object) -> list:
    """``value`` when it is a list, else empty (a kubeconfig section of another type names nothing: issue 18)."""
    return value if isinstance(value, list) else []


def parse_kube_config(text: str) -> CredentialFacts:
    """``~/.kube/config`` (pure): cluster servers (``deploys_to target:cluster:SERVER``) when users hold credentials.

    >>> f = parse_kube_config("clusters:\\n- name: c\\n  cluster: {server: 'https://k8s.example:6443'}\\n"
    ...                       "users:\\n- name: u\\n  user: {token: placeholder}\\n")
    >>> f.present, f.grants
    (True, [('deploys_to', 'target:cluster:https://k8s.example:6443')])

    Raises
    ------
    ValueError
        not YAML or not a mapping (the message names no content).
    """
    try:
        doc, _ = load_yaml(text, file="")  # the one bounded loader: aliases, depth and duplicate keys checked
    except InputError as exc:
        raise ValueError("not valid YAML" + (f" ({exc.place})" if exc.place else "") + f": {exc.reason}") from None
    if not isinstance(doc, dict):
        raise ValueError("expected a mapping")
    facts = CredentialFacts("kube")
    users = [u.get("user") for u in _list_of(doc.get("users")) if isinstance(u, dict)]
    facts.present = any(isinstance(u, dict) and any(k in u for k in _KUBE_SECRET_KEYS) for u in users)
    for c in _list_of(doc.get("clusters")):
        server = c.get("cluster", {}).get("server") if isinstance(c, dict) and isinstance(c.get("cluster"), dict) else None
        if isinstance(server, str) and server.strip():
            server = facts.clean_url(server)
            facts.access.append(f"cluster:{server}")
            if facts.present:
                facts.grants.append(("deploys_to", ids.target("cluster", server)))
    # an EKS exec plugin (aws eks get-token --role-arn, aws-iam-authenticator -r) acts as that AWS role, which the
    # cluster maps to Kubernetes groups (ingest/_kubeconfig.py; graphkit/resolve/k8s.py)
    users = kubeconfig_users(doc)
    facts.access += [f"user:{name} ({u.credential})" for name, u in users.items()]  # token, client-certificate, exec...
    facts.grants += assumes_roles([u.role_arn for u in users.values() if u.role_arn])
    return facts


def parse_npmrc(text: str) -> CredentialFacts:
    """``~/.npmrc`` (pure): registries with ``_authToken`` / ``_auth`` / ``_password`` (``publishes_to``).

    >>> parse_npmrc("//registry.npmjs.org/:_authToken=placeholder\\n").grants
    [('publishes_to', 'target:package_index:registry.npmjs.org')]
    """
    facts = CredentialFacts("npm")
    default = "registry.npmjs.org"
    indexes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        k, sep, v = line.partition("=")
        if not sep:
            continue
        k, v = k.strip(), v.strip()
        if k == "registry" and v:
            default = facts.clean_url(v).split("://", 1)[-1].rstrip("/")
        field_name = k.rsplit(":", 1)[-1]
        if field_name in ("_authToken", "_auth", "_password", "username") and v:
            index = facts.clean_url(k.rsplit(":", 1)[0]).lstrip("/").rstrip("/") if k.startswith("//") else default
            indexes.append(index)
    facts.present = bool(indexes)
    for idx in dict.fromkeys(i for i in indexes if i.strip()):  # a blank registry names no index
        facts.access.append(f"index:{idx}")
        facts.grants.append(("publishes_to", ids.target("package_index", idx)))
    return facts


_PYPI_DEFAULTS = {"pypi": "upload.pypi.org/legacy", "testpypi": "test.pypi.org/legacy"}


def parse_pypirc(text: str) -> CredentialFacts:
    """``~/.pypirc`` (pure): index servers with a password or token (``publishes_to``).

    >>> parse_pypirc("[pypi]\\nusername = __token__\\npassword = placeholder\\n").access
    ['index:upload.pypi.org/legacy']

    Raises
    ------
    ValueError
        not INI.
    """
    facts = CredentialFacts("pypi")
    cp = _ini(text)
    for section in cp.sections():
        if section == "distutils":
            continue
        sec = {k.lower(): v for k, v in cp.items(section)}
        if not sec.get("password"):
            continue
        repo = sec.get("repository", "").strip() or _PYPI_DEFAULTS.get(section, section)
        idx = facts.clean_url(repo).split("://", 1)[-1].rstrip("/")
        facts.present = True
        if not idx.strip():
            continue  # a repository URL without a host names no index
        facts.access.append(f"index:{idx}")
        facts.grants.append(("publishes_to", ids.target("package_index", idx)))
    return facts


def parse_gh_hosts(text: str) -> CredentialFacts:
    """gh ``hosts.yml`` (pure): ``github:HOST`` for each host with a token.

    >>> parse_gh_hosts("github.com:\\n  oauth_token: placeholder\\n  user: octo\\n").access
    ['github:github.com']

    Raises
    ------
    ValueError
        not YAML or not a mapping.
    """
    try:
        doc, _ = load_yaml(text, file="")  # the one bounded loader: aliases, depth and duplicate keys checked
    except InputError as exc:
        raise ValueError("not valid YAML" + (f" ({exc.place})" if exc.place else "") + f": {exc.reason}") from None
    if doc is None:
        return CredentialFacts("gh")
    if not isinstance(doc, dict):
        raise ValueError("expected a mapping")
    facts = CredentialFacts("gh")
    for host, entry in doc.items():
        users = entry.get("users") if isinstance(entry, dict) else None
        has = isinstance(entry, dict) and (bool(entry.get("oauth_token")) or isinstance(users, dict))
        if has:
            facts.present = True
            facts.access.append(f"github:{host}")
    return facts


def parse_git_credentials(text: str) -> CredentialFacts:
    """``~/.git-credentials`` (pure): ``git:HOST`` per stored credential (``https://user:pass@host``).

    >>> parse_git_credentials("https://bot:placeholder@github.com\\n").access
    ['git:github.com']
    """
    facts = CredentialFacts("git")
    hosts = []
    for raw in text.splitlines():
        line = raw.strip()
        if "@" not in line or "://" not in line:
            continue
        try:
            parts = urlsplit(line)
            host, has_secret = parts.hostname, parts.password is not None
        except ValueError:
            continue
        if host and has_secret:
            hosts.append(host.lower())
    for h in dict.fromkeys(hosts):
        facts.present = True
        facts.access.append(f"git:{h}")
    return facts


_KEY_HEADER = re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def is_private_key(data: bytes) -> bool:
    """True when the bytes start a PEM/OpenSSH private key (SSH, cosign/sigstore): the header only.

    >>> is_private_key(b"ssh-ed25519 AAAA user@host")
    False
    """
    return bool(_KEY_HEADER.search(data[:200]))

