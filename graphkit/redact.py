"""Secret values never leave the input: URL credentials, literal tokens, keyed fingerprints (one place).

graphkit reads files that anyone who can push, or who touched a build host, wrote.  What looks like a
credential is dropped before anything is stored; only a keyed fingerprint (to tell two values apart) and a
flag stay:

- :func:`strip_url_credentials`: the userinfo (``https://user:token@host``, RFC 3986 section 3.2.1, which
  "is deprecated" for passwords) and the query parameters that carry tokens (``?private_token=``,
  ``?access_token=``, ``?sig=``...) are removed from a URL; the removed text is fingerprinted.  Used on
  kubeconfig ``server``, docker ``auths`` keys, npmrc/pypirc registries, ``.runner`` ``gitHubUrl``/``serverUrl``
  and GitLab runner ``url`` before a node, an id or a snapshot is made of them.
- :func:`find_credentials` / :func:`redact_text`: literal credentials in free text (``run:`` scripts, ``env:``
  and ``with:`` values).  Token formats are the regular expressions of Yelp's maintained ``detect-secrets``
  rule set (its ``RegexBasedDetector`` plugins: GitHub, AWS, GitLab, Slack, private keys, JWT, npm, PyPI,
  Stripe, OpenAI, SendGrid, Azure storage, Square, Discord; https://github.com/Yelp/detect-secrets), plus
  high-entropy assignments to credential-named keys (Shannon entropy from ``detect-secrets``), plus URL
  credentials.  Its line scanner is not used: about 1 ms per line and keyword false positives (``key: x``).
- :func:`fingerprint`: HMAC-SHA256 with a documented key, truncated to 64 bits (tells values apart, too short
  to confirm a guess offline).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, urlsplit, urlunsplit


__all__ = ["FINGERPRINT_HEX", "FINGERPRINT_KEY", "REDACTED", "SECRET_CONDITION_KEYS", "CleanUrl", "CredentialMatch",
           "find_credentials", "fingerprint", "looks_like_credential_name", "mark_credentials", "mark_tokens",
           "mark_value",
           "redact_text", "redact_policy_secrets", "strip_embedded_urls", "strip_url_credentials", "strip_url_fields"]

#: Default fingerprint key (documented, fixed): fingerprints stay comparable across runs and machines.
#: A per-installation key stops anyone holding a snapshot from confirming a guessed low-entropy value.
FINGERPRINT_KEY = b"graphkit/host-fingerprint/v1"
#: Hex digits kept of the HMAC-SHA256 (64 bits: enough to tell values apart, too few to be an oracle).
FINGERPRINT_HEX = 16
#: What stands in for a removed value.
REDACTED = "***"


def fingerprint(data: bytes, key: bytes = FINGERPRINT_KEY) -> str:
    """Keyed, truncated fingerprint of secret bytes: HMAC-SHA256, first :data:`FINGERPRINT_HEX` hex digits.

    The caller drops ``data`` right after; only this value is kept.

    >>> len(fingerprint(b"x")), fingerprint(b"x") == fingerprint(b"x"), fingerprint(b"x") == fingerprint(b"x", b"k")
    (16, True, False)
    """
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX]


# --------------------------------------------------------------------------- URLs

#: Query parameters that carry a credential (GitLab ``private_token``/``job_token``, OAuth ``access_token``,
#: Azure SAS ``sig``, AWS presigned ``X-Amz-Signature``/``X-Amz-Credential``/``X-Amz-Security-Token``...),
#: compared lower-cased with ``-`` read as ``_``.
_SECRET_PARAMS = frozenset({
    "token", "access_token", "private_token", "job_token", "auth", "auth_token", "authtoken", "_authtoken",
    "password", "passwd", "pwd", "pass", "secret", "client_secret", "api_key", "apikey", "key", "sig", "signature",
    "code", "x_amz_signature", "x_amz_credential", "x_amz_security_token", "refresh_token", "id_token", "session",
    "sessiontoken", "bearer",
})


@dataclass(frozen=True)
class CleanUrl:
    """A URL without credentials: ``url`` as written less userinfo and secret query parameters;
    ``fingerprint`` of what was removed (None when nothing was)."""

    url: str
    fingerprint: str | None = None

    @property
    def had_credential(self) -> bool:
        """True when the URL held a credential (the finding ``credential-in-url``)."""
        return self.fingerprint is not None


def _secret_param(name: str) -> bool:
    return name.lower().replace("-", "_") in _SECRET_PARAMS


def strip_url_credentials(url: str, key: bytes = FINGERPRINT_KEY) -> CleanUrl:
    """``url`` without its userinfo and token query parameters, and a fingerprint of what was removed.

    Text that is not a URL with a scheme and authority (``ghcr.io``, ``//registry.npmjs.org/``) is read as
    ``//`` + text, so a bare ``user:pw@host`` loses its userinfo too.  Unparsable text (an unclosed IPv6
    bracket) is cut at its last ``@`` as a precaution.

    >>> strip_url_credentials("https://bot:pw@github.com/acme?x=1&private_token=t").url
    'https://github.com/acme?x=1'
    >>> strip_url_credentials("https://github.com/acme")
    CleanUrl(url='https://github.com/acme', fingerprint=None)
    >>> strip_url_credentials("user:pw@ghcr.io").url
    'ghcr.io'
    """
    scheme_less = "://" not in url and not url.startswith("//")
    try:
        parts = urlsplit(("//" + url) if scheme_less else url)
    except ValueError:
        if "@" not in url:
            return CleanUrl(url)
        return CleanUrl(url.rsplit("@", 1)[1], fingerprint(url.encode("utf-8", "replace"), key))
    removed: list[str] = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, netloc = netloc.rsplit("@", 1)
        removed.append(userinfo)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        kept = [p for p in query.split("&") if not _secret_param(p.split("=", 1)[0])]
        if len(kept) != len(query.split("&")):
            removed += [f"{k}={v}" for k, v in pairs if _secret_param(k)]
            query = "&".join(kept)
    if not removed:
        return CleanUrl(url)
    clean = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    if scheme_less:
        clean = clean.removeprefix("//")
    return CleanUrl(clean, fingerprint("\0".join(removed).encode("utf-8", "replace"), key))


def strip_url_fields(data: dict, fields: tuple[str, ...] = ("url", "server_url"), key: bytes = FINGERPRINT_KEY,
                     flag: str = "url_credential_fingerprint") -> dict:
    """A copy of ``data`` whose ``fields`` (strings) lost their URL credentials, and ``flag`` set to the
    fingerprint of the first removed credential (unless already set).  Key order is kept.

    >>> strip_url_fields({"url": "https://x:y@github.com/acme", "n": 1})["url"]
    'https://github.com/acme'
    """
    out, removed = dict(data), []
    for name in fields:
        if isinstance(out.get(name), str):
            clean = strip_url_credentials(out[name], key)
            out[name] = clean.url
            if clean.fingerprint:
                removed.append(clean.fingerprint)
    if removed and not out.get(flag):
        out[flag] = removed[0]
    return out


#: Every URL inside a longer text (``cluster:https://user:pw@k8s:6443``).
_URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"`<>]+")


def strip_embedded_urls(text: str, key: bytes = FINGERPRINT_KEY) -> CleanUrl:
    """``text`` with :func:`strip_url_credentials` applied to every URL in it (``scheme://...``).

    >>> strip_embedded_urls("cluster:https://u:pw@k8s.test:6443").url
    'cluster:https://k8s.test:6443'
    """
    removed: list[str] = []

    def clean(m: re.Match[str]) -> str:
        c = strip_url_credentials(m.group(0), key)
        if c.fingerprint:
            removed.append(c.fingerprint)
        return c.url

    out = _URL_IN_TEXT.sub(clean, text) if "://" in text else text
    return CleanUrl(out, fingerprint("\0".join(removed).encode(), key) if removed else None)


# --------------------------------------------------------------------------- literal credentials in text

@dataclass(frozen=True)
class CredentialMatch:
    """A credential found in text: ``kind`` (``GitHub Token``...), its span ``[start, end)`` and 1-based
    ``line``, and the ``fingerprint`` of the value (identity of a finding; the value itself is not kept)."""

    kind: str
    start: int
    end: int
    line: int
    fingerprint: str


@lru_cache(maxsize=1)
def _token_res() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """``(kind, regex)`` of the detect-secrets plugins whose token formats are precise (their ``denylist``
    regular expressions); imported on first use (detect-secrets takes most of a second to import)."""
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    detectors = (AWSKeyDetector, GitHubTokenDetector, GitLabTokenDetector, SlackDetector, JwtTokenDetector,
                 NpmDetector, PypiTokenDetector, StripeDetector, OpenAIDetector, SendGridDetector,
                 AzureStorageKeyDetector, SquareOAuthDetector, DiscordBotTokenDetector)
    return tuple((d.secret_type, rx) for d in detectors for rx in d.denylist)


@lru_cache(maxsize=1)
def _entropy() -> object:
    """detect-secrets' entropy over the base64 alphabet (imported on first use)."""
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
    return Base64HighEntropyString(limit=_ENTROPY_MIN)


#: GitHub's newer fine-grained PAT format (``github_pat_``), not in detect-secrets 1.5.
#: https://github.blog/security/application-security/behind-githubs-new-authentication-token-formats/
#: And the prefixed formats (``ghp_`` ``gho_`` ``ghu_`` ``ghs_`` ``ghr_``) at any length from 20 characters:
#: detect-secrets matches exactly 36 after the prefix, but GitHub says "integrators should plan to support tokens
#: up to 255 characters" (https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available)
#: and installation tokens (``ghs_``) now vary in length and hold ``.`` and ``-``
#: (https://github.blog/changelog/2026-05-15-github-app-installation-tokens-per-request-override-header/); a
#: shorter or longer value is still a token, and a longer one is redacted whole (not its first 36 characters).
_EXTRA_RES = (("GitHub Token", re.compile(r"github_pat_[A-Za-z0-9_]{22,255}")),
              ("GitHub Token", re.compile(r"gh[pousr]_(?=[A-Za-z0-9_]{20})[A-Za-z0-9_.\-]*[A-Za-z0-9_]")))
#: A private key block, header to footer (or to the end of the text when cut).
_PRIVATE_KEY = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY"
                          r"( BLOCK)?-----|.*\Z)", re.S)
#: ``scheme://user:password@`` (the userinfo of a URL holding a password).
_URL_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://([^\s/@:'\"`]*:[^\s/@'\"`]+)@")
#: A token query parameter in a URL.
_URL_PARAM = re.compile(r"(?i)[?&](" + "|".join(sorted(re.escape(p).replace("_", "[_-]") for p in _SECRET_PARAMS
                                                         if len(p) > 3)) + r")=([^\s&#'\"`]+)")
#: The words that make a name say "credential" (``DB_PASSWORD``, ``api-key``, ``SECRET_TOKEN``).
_CREDENTIAL_WORDS = (r"(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
                     r"credentials?|auth)")
_CREDENTIAL_NAME = re.compile(r"(?i)(?:^|[\W_])" + _CREDENTIAL_WORDS + r"(?:$|[\W_])")
#: ``NAME=value`` / ``NAME: value`` / ``--password value`` where NAME says credential.
_ASSIGNMENT = re.compile(
    r"(?i)(?:\b[\w.-]*" + _CREDENTIAL_WORDS + r"\b[\w.-]*[\"']?[ \t]*[:=][ \t]*|--(?:password|passwd|token|secret|api-key)[ =])"
    r"\[?[ \t]*[\"']?([^\s\"'`;|&):\],]{8,})(?![\w:])")
#: Shannon entropy (bits per character) an assigned value needs to count as a credential.
_ENTROPY_MIN = 3.0
#: detect-secrets' ``PrivateKeyDetector.secret_type``.
_PRIVATE_KEY_KIND = "Private Key"


def looks_like_credential_name(name: str) -> bool:
    """True when a variable or key name says it holds a credential (the words :func:`find_credentials` uses for
    assignments, as a whole word or ``_``-separated part).

    >>> [looks_like_credential_name(n) for n in ("DOCKER_HUB_PASSWORD", "CI_JOB_TOKEN", "TOKENIZER", "GIT_DEPTH")]
    [True, True, False, False]
    """
    return bool(_CREDENTIAL_NAME.search(name))


def _plausible_value(value: str) -> bool:
    """An assigned value that may be a literal credential: no reference (``${{ }}``, ``$VAR``, ``@path``),
    not a placeholder, high entropy."""
    if any(c in value for c in "${}<>%") or value.startswith(("@", "/", "./", "http")):
        return False
    low = value.lower()
    if low in ("true", "false", "null", "none", "required", "optional") or "example" in low or "xxxx" in low:
        return False
    if sum(any(f(c) for c in value) for f in (str.islower, str.isupper, str.isdigit)) < 2:
        return False  # a name (``pre-defined-secret``, ``ghp_your_pat``), not a credential
    return _entropy().calculate_shannon_entropy(value) >= _ENTROPY_MIN  # type: ignore[attr-defined]


#: Literal text every match of a token format holds (keyed by the format's pattern, as detect-secrets 1.5
#: writes it; a format not listed is always run).  Case-insensitive formats list lower-case needles.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}": ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"),
    r"""aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]""": ("aws",),
    "(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\\-]{20,50}(?!\\w)": ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"),
    "GR1348941[A-Za-z0-9_\\-]{20,50}(?!\\w)": ("GR1348941",),
    "glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\\-]{20,50}(?!\\w)": ("glcbt-",),
    "glimt-[A-Za-z0-9_\\-]{25}(?!\\w)": ("glimt-",),
    "glptt-[A-Za-z0-9_\\-]{40}(?!\\w)": ("glptt-",),
    "glagent-[A-Za-z0-9_\\-]{50,1024}(?!\\w)": ("glagent-",),
    "gloas-[A-Za-z0-9_\\-]{64}(?!\\w)": ("gloas-",),
    "xox(?:a|b|p|o|s|r)-(?:\\d+-)+[a-z0-9]+": ("xox",),
    "https://hooks\\.slack\\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+": ("hooks.slack.com/services/t",),
    "eyJ[A-Za-z0-9-_=]+\\.[A-Za-z0-9-_=]+\\.?[A-Za-z0-9-_.+/=]*?": ("eyJ",),
    "\\/\\/.+\\/:_authToken=\\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": ("/:_authToken=",),
    "pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}": ("pypi-AgEIcHlwaS5vcmc",),
    "pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}": ("pypi-AgENdGVzdC5weXBpLm9yZw",),
    "(?:r|s)k_live_[0-9a-zA-Z]{24}": ("k_live_",),
    "sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": ("BlbkFJ",),
    "SG\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9_-]{43}": ("SG.",),
    "AccountKey=[a-zA-Z0-9+\\/=]{88}": ("ountKey=",),
    "sq0csp-[0-9A-Za-z\\\\\\-_]{43}": ("sq0csp-",),
    "github_pat_[A-Za-z0-9_]{22,255}": ("github_pat_",),
    "gh[pousr]_(?=[A-Za-z0-9_]{20})[A-Za-z0-9_.\\-]*[A-Za-z0-9_]": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
}
#: What every ``_ASSIGNMENT`` match holds (case-insensitively): one of its credential words.
_ASSIGNMENT_NEEDLES = ("passw", "secret", "token", "key", "credential", "auth")
_ASSIGNMENT_NEEDLE_RE = re.compile(r"(?i)passw|secret|token|key|credential|auth")


@lru_cache(maxsize=1)
def _format_plan() -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str], frozenset[str] | None, bool], ...]]:
    """The case-sensitive needles of ``_NEEDLES`` in one alternation (no needle overlaps another format's:
    tested, so a non-overlapping search finds a needle of every format present), and ``(kind, regex,
    needles or None, case-insensitive)`` of every token format, in :func:`_spans_reference`'s order."""
    formats = tuple((kind, rx, frozenset(_NEEDLES[rx.pattern]) if rx.pattern in _NEEDLES else None,
                     bool(rx.flags & re.IGNORECASE)) for kind, rx in _token_res() + _EXTRA_RES)
    needles = {n for _, _, ns, ci in formats if ns and not ci for n in ns}
    return re.compile("|".join(map(re.escape, sorted(needles, key=lambda n: (-len(n), n))))), formats


def _formats_to_run(text: str, low: str | None) -> list[tuple[str, re.Pattern[str]]]:
    """The token formats that can match in ``text``: those holding one of their needles (case-insensitive
    ones compared in ``low``, the ASCII text lower-cased; always run on non-ASCII text) and those without."""
    needle_re, formats = _format_plan()
    present = set(needle_re.findall(text))
    return [(kind, rx) for kind, rx, needles, ci in formats
            if needles is None or (any(n in low for n in needles) if ci and low is not None
                                   else ci or not present.isdisjoint(needles))]


def _line_runs(text: str, starts: list[int]) -> list[tuple[int, int]]:
    """``[start, end)`` runs of the whole lines of ``text`` (newline included) holding one of ``starts``."""
    runs: list[tuple[int, int]] = []
    for p in sorted(starts):
        if runs and p < runs[-1][1]:
            continue
        s, e = text.rfind("\n", 0, p) + 1, text.find("\n", p)
        e = len(text) if e < 0 else e + 1
        if runs and s == runs[-1][1]:
            runs[-1] = (runs[-1][0], e)
        else:
            runs.append((s, e))
    return runs


def _found_at(text: str, low: str | None, needles: tuple[str, ...], rx_ci: re.Pattern[str]) -> list[int]:
    """Where ``needles`` start in ``text``, case-insensitively (``rx_ci`` finds them when ``low`` is None)."""
    if low is None:
        return [m.start() for m in rx_ci.finditer(text)]
    out = []
    for n in needles:
        i = low.find(n)
        while i >= 0:
            out.append(i)
            i = low.find(n, i + 1)
    return out


def _line_matches(text: str, rx: re.Pattern[str], starts: list[int]) -> list[re.Match[str]]:
    """``rx.finditer(text)`` for a pattern whose matches never cross a newline and always hold one of the
    places ``starts``: the same matches, searched only in the lines holding one."""
    return [m for s, e in _line_runs(text, starts) for m in rx.finditer(text, s, e)]


def _spans(text: str, assignments: bool = True) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of every credential in ``text``, unsorted, possibly overlapping; the matches of
    :func:`_spans_reference`, with each format run only where its literal text (``_NEEDLES``) is.  Without
    ``assignments``, the token formats, key blocks and URL credentials only (:func:`mark_tokens`)."""
    low = text.lower() if text.isascii() else None
    found = [(kind, m.start(), m.end()) for kind, rx in _formats_to_run(text, low) for m in rx.finditer(text)]
    if "-----BEGIN" in text:
        found += [(_PRIVATE_KEY_KIND, m.start(), m.end()) for m in _PRIVATE_KEY.finditer(text)]
    urls = _line_matches(text, _URL_USERINFO, _found_at(text, text, ("://",), _URL_USERINFO))
    found += [("URL credential", m.start(1), m.end(1)) for m in urls if "$" not in m.group(1)]
    found += [("URL credential", m.start(2), m.end(2)) for m in _URL_PARAM.finditer(text) if "$" not in m.group(2)]
    if not assignments:
        return found
    words = _found_at(text, low, _ASSIGNMENT_NEEDLES, _ASSIGNMENT_NEEDLE_RE)
    found += [("High-entropy assignment", m.start(1), m.end(1)) for m in _line_matches(text, _ASSIGNMENT, words)
              if _plausible_value(m.group(1))]
    return found


def _spans_reference(text: str) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of every credential in ``text``: every format run over the whole text (the
    specification of :func:`_spans`, kept for the differential tests)."""
    found = [(kind, m.start(), m.end()) for kind, rx in _token_res() + _EXTRA_RES for m in rx.finditer(text)]
    found += [(_PRIVATE_KEY_KIND, m.start(), m.end()) for m in _PRIVATE_KEY.finditer(text)]
    found += [("URL credential", m.start(1), m.end(1)) for m in _URL_USERINFO.finditer(text) if "$" not in m.group(1)]
    found += [("URL credential", m.start(2), m.end(2)) for m in _URL_PARAM.finditer(text) if "$" not in m.group(2)]
    found += [("High-entropy assignment", m.start(1), m.end(1)) for m in _ASSIGNMENT.finditer(text)
              if _plausible_value(m.group(1))]
    return found


#: What :func:`mark_credentials` and :func:`redact_text` leave in place of a value: never a credential itself
#: (``?token=***<hex>`` is not marked again: marking is idempotent).
_MARK = re.compile(r"\*\*\*(?:[0-9a-f]{%d})?" % FINGERPRINT_HEX)


#: The token formats without needles (``_NEEDLES``), by their own pattern: detect-secrets' Discord bot token
#: (``tests/test_redact_fast.py`` checks this is every one of them).
_BARE_FORMATS = (re.compile(r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),)


@lru_cache(maxsize=2)
def _maybe_words(assignments: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(as written, lower-cased)``: the words every token format's match holds (``_NEEDLES``: one holding an
    upper-case letter is literal text of a case-sensitive format, found as written; the others are compared
    lower-cased, a superset), a key block's header, and with ``assignments`` the credential words of
    assignments; without importing detect-secrets (a saved graph is loaded without it).  ``aws`` is left to
    :func:`_may_hold_token`: every ARN holds it, and its format needs a quoted value."""
    needles = {n for ns in _NEEDLES.values() for n in ns} | {"-----BEGIN"}
    written = {n for n in needles if not n.islower()}
    low = {n for n in needles - written if n != "aws"} | (set(_ASSIGNMENT_NEEDLES) if assignments else set())
    return tuple(sorted(written)), tuple(sorted(low))


def _may_hold_credential(text: str, assignments: bool = True) -> bool:
    """False when ``text`` cannot hold a credential: the cheap test of :func:`mark_credentials` and
    :func:`mark_tokens` (the latter runs on every string a node stores).  It can when it holds one of
    :func:`_maybe_words`, ``://`` (URL userinfo), ``?``/``&`` and ``=`` (a token query parameter), or a match of
    a format without needles (:data:`_BARE_FORMATS`)."""
    if not text.isascii():
        return True  # case-insensitive formats match characters that lower() does not map (Kelvin sign, long s)
    return _may_hold_token(text, assignments) or _may_hold_url_credential(text)


def _may_hold_token(text: str, assignments: bool) -> bool:
    """:func:`_may_hold_credential` but for URL credentials (ASCII ``text``)."""
    written, lowered = _maybe_words(assignments)
    if any(w in text for w in written):
        return True
    low = text.lower()
    if any(w in low for w in lowered) or ("aws" in low and ("'" in text or '"' in text)):
        return True
    return any(rx.search(text) for rx in _BARE_FORMATS)


def _may_hold_url_credential(text: str) -> bool:
    return "://" in text or ("=" in text and ("?" in text or "&" in text))


def _url_credential(text: str) -> bool:
    """Whether ``text`` holds a URL credential :func:`_spans` finds (its two URL expressions, no detect-secrets)."""
    return any("$" not in m.group(1) for m in _URL_USERINFO.finditer(text)) or \
        any("$" not in m.group(2) for m in _URL_PARAM.finditer(text))


def find_credentials(text: str, key: bytes = FINGERPRINT_KEY, *, assignments: bool = True) -> list[CredentialMatch]:
    """Literal credentials in ``text``, in order of position, overlaps merged (the first kind is kept); without
    ``assignments``, not the high-entropy values assigned to credential-named keys (:func:`mark_tokens`).

    >>> [(m.kind, m.line) for m in find_credentials("a: 1\\nb: ghp_" + "A1b2" * 9 + "\\n")]
    [('GitHub Token', 2)]
    >>> find_credentials("token: ${{ secrets.GITHUB_TOKEN }}\\nuses: actions/checkout@v4\\n")
    []
    """
    merged: list[list] = []
    for kind, start, end in sorted(_spans(text, assignments), key=lambda s: (s[1], -s[2])):
        if _MARK.fullmatch(text, start, end):
            continue  # a value already replaced (``?token=***<hex>``)
        if merged and start < merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], end)
        else:
            merged.append([kind, start, end])
    return [CredentialMatch(kind, s, e, text.count("\n", 0, s) + 1, fingerprint(text[s:e].encode("utf-8", "replace"),
                                                                                key))
            for kind, s, e in merged]


def redact_text(text: str) -> str:
    """``text`` with every credential of :func:`find_credentials` replaced by :data:`REDACTED`.

    >>> redact_text("curl https://bot:hunter2hunter2@example.test/x -H 'token: ghp_" + "A1b2" * 9 + "'")
    "curl https://***@example.test/x -H 'token: ***'"
    """
    if not text:
        return text
    parts, last = [], 0
    for m in find_credentials(text):
        parts += [text[last:m.start], REDACTED]
        last = m.end
    return "".join(parts) + text[last:] if parts else text


def mark_credentials(text: str, key: bytes = FINGERPRINT_KEY) -> str:
    """``text`` with every credential of :func:`find_credentials` replaced by :data:`REDACTED` and the keyed
    fingerprint of its value, as :func:`ingest._credentials.scrub` writes it in ids and names: two different
    values stay told apart, and a value read from a user's file names the node scrubbed of the same value.  A
    value already marked is left as it is.

    >>> mark_credentials("runner:acme/ghp_" + "A1b2" * 9) == "runner:acme/***" + fingerprint(b"ghp_" + b"A1b2" * 9)
    True
    >>> m = mark_credentials("https://x.test/?token=s3cr3tS3cr3t"); m == mark_credentials(m), m[:27]
    (True, 'https://x.test/?token=***c7')
    """
    if not text or not _may_hold_credential(text):
        return text
    return _mark(text, key, True)


def mark_tokens(text: str, fold: bool = False) -> str:
    """``text`` with every credential of a precise format (the token formats, private key blocks and URL
    credentials of :func:`find_credentials`, not the high-entropy assignments, whose keyword test would take
    ``github_token:acme/...`` or ``secretsmanager:GetSecretValue`` for one) marked as :func:`mark_credentials`
    marks it.

    Every input-derived string a node, an edge, an evidence or an id stores goes through it (the model
    validators, :meth:`graphkit.model.ids.IdForm.build`), whatever the source: the two sides of a join (a
    workflow's ``runs-on`` label and an inventory runner's) are marked alike, and a value already marked is
    left as it is.  Text without a format's needles (:func:`_may_hold_credential`) is returned at once.

    >>> mark_tokens("lbl-ghp_" + "A1b2" * 9) == "lbl-***" + fingerprint(b"ghp_" + b"A1b2" * 9)
    True
    >>> mark_tokens("github_token:acme/app/.github/workflows/ci.yml#password=Xk3pQ9vLm2Zr")
    'github_token:acme/app/.github/workflows/ci.yml#password=Xk3pQ9vLm2Zr'

    ``fold``: the value is one the platform compares case-insensitively (a GitHub runner label, an owner,
    repository or environment name; :attr:`graphkit.model.node.Node.caseless_fields`): a credential is looked
    for in the text as written, lower-cased and upper-cased, and fingerprinted lower-cased, so two spellings that
    differ only in case (which the platform takes for one) are marked alike, and an upper-cased token
    (``LBL-GHP_...``) is marked too.

    >>> mark_tokens("LBL-GHP_" + "A1B2" * 9, fold=True) == "LBL-***" + fingerprint(b"ghp_" + b"a1b2" * 9)
    True
    >>> mark_tokens("lbl-ghp_" + "A1b2" * 9, fold=True)[4:] == mark_tokens("lbl-GHP_" + "a1B2" * 9, fold=True)[4:]
    True
    """
    if not text:
        return text
    return _mark_folded(text) if fold else _mark_tokens(text)


@lru_cache(maxsize=1 << 14)
def _mark_folded(text: str) -> str:
    """:func:`mark_tokens` with ``fold``: the spans of a credential in ``text``, ``text.lower()`` or
    ``text.upper()`` (merged), each replaced by :data:`REDACTED` and the fingerprint of its lower-cased text.
    A text whose case mapping changes its length (a few non-ASCII letters) is marked as written, not folded."""
    low, up = text.lower(), text.upper()
    if len(low) != len(text) or len(up) != len(text):
        return _mark_tokens(text)
    spans = sorted((m.start, m.end) for t in {text, low, up} if _needs_scan(t)
                   for m in find_credentials(t, FINGERPRINT_KEY, assignments=False))
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts, last = [], 0
    for start, end in merged:
        parts += [text[last:start], REDACTED + fingerprint(low[start:end].encode("utf-8", "replace"))]
        last = end
    return "".join(parts) + text[last:] if parts else text


@lru_cache(maxsize=1 << 16)
def _mark_tokens(text: str) -> str:
    """:func:`mark_tokens`, once per distinct text (a build marks the same label, path or id thousands of
    times)."""
    return _mark(text, FINGERPRINT_KEY, False) if _needs_scan(text) else text


def _needs_scan(text: str) -> bool:
    """Whether :func:`find_credentials` (without assignments) may find something in ``text``: a token format's
    needle, else a URL credential that its two expressions find, so that detect-secrets stays unloaded for the
    usual URL (node fields lost their URL credentials before they are marked) and for a saved graph's load."""
    if not text.isascii() or _may_hold_token(text, False):
        return True
    return _may_hold_url_credential(text) and _url_credential(text)


def _mark(text: str, key: bytes, assignments: bool) -> str:
    parts, last = [], 0
    for m in find_credentials(text, key, assignments=assignments):
        parts += [text[last:m.start], REDACTED + m.fingerprint]
        last = m.end
    return "".join(parts) + text[last:] if parts else text


def mark_value(value: object, fold: bool = False) -> object:
    """``value`` with :func:`mark_tokens` applied to every string in it: a string, or lists, tuples,
    mappings (keys and values) and pydantic models (their fields, by ``model_copy``) holding strings, walked
    without recursion (hostile nesting has no depth limit here).  ``value`` itself, not a copy, when no string
    in it changes; other types are kept as they are.

    >>> mark_value(["linux", {"ghp_" + "A1b2" * 9: (1, "x")}])[1] == {"***" + fingerprint(b"ghp_" + b"A1b2" * 9): (1, "x")}
    True
    >>> v = ["linux", ("x",)]; mark_value(v) is v
    True
    """
    if type(value) is str:
        return mark_tokens(value, fold)
    if not (isinstance(value, (list, tuple, dict)) or _is_model(value)) or not _holds_credential(value, fold):
        return value
    stack: list[tuple[object, Iterator[object], list[object]]] = [(value, _children(value), [])]
    while True:
        node, items, out = stack[-1]
        child = next(items, _END)
        if child is _END:
            stack.pop()
            built = _assemble(node, out)
            if not stack:
                return built
            stack[-1][2].append(built)
        elif isinstance(child, (list, tuple, dict)) or _is_model(child):
            stack.append((child, _children(child), []))
        else:
            out.append(mark_tokens(child, fold) if type(child) is str else child)


_END = object()


def _is_model(value: object) -> bool:
    """A pydantic model (told by its class's ``model_fields``: this module does not import pydantic, which the
    CLI's ``--help`` never loads)."""
    return hasattr(type(value), "model_fields") and hasattr(value, "model_copy")


def _children(value: object) -> Iterator[object]:
    """The values in a container, in order: a mapping's keys and values interleaved, a model's fields."""
    if isinstance(value, dict):
        return (x for kv in value.items() for x in kv)
    if _is_model(value):
        return iter(list(value.__dict__.values()))
    return iter(value)  # type: ignore[call-overload]


def _assemble(node: object, out: list[object]) -> object:
    """``node`` rebuilt of its marked children ``out`` (:func:`_children`'s order)."""
    if isinstance(node, dict):
        return dict(zip(out[::2], out[1::2]))
    if _is_model(node):
        return node.model_copy(update=dict(zip(node.__dict__, out)))  # type: ignore[attr-defined]
    return tuple(out) if isinstance(node, tuple) else out


def _holds_credential(value: object, fold: bool = False) -> bool:
    """Whether a string in ``value`` (lists, tuples, mappings, models) changes under :func:`mark_tokens`."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str:
            if mark_tokens(v, fold) != v:
                return True
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif _is_model(v):
            stack.extend(v.__dict__.values())
    return False


# --------------------------------------------------------------------------- policy documents

#: Condition keys whose values are shared secrets between two parties: ``sts:ExternalId`` ("a secret that
#: only you and your customer know", used against the confused deputy problem).
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_common-scenarios_third-party.html
SECRET_CONDITION_KEYS = frozenset({"sts:externalid"})


def redact_policy_secrets(document: object, key: bytes = FINGERPRINT_KEY) -> object:
    """A copy of an IAM policy document whose secret condition values (:data:`SECRET_CONDITION_KEYS`) are
    replaced by ``fingerprint:<hex>`` (same type: a string or a list of strings).  Walks iteratively (no
    recursion limit); other values are shared, not copied.

    >>> d = {"Statement": [{"Condition": {"StringEquals": {"sts:ExternalId": "fake-shared-secret"}}}]}
    >>> redact_policy_secrets(d)["Statement"][0]["Condition"]["StringEquals"]["sts:ExternalId"][:12]
    'fingerprint:'
    """
    def hide(v: object) -> object:
        if isinstance(v, list):
            return [hide(x) for x in v]
        return f"fingerprint:{fingerprint(str(v).encode('utf-8', 'replace'), key)}"

    root: list[object] = [document]
    stack: list[tuple[object, object]] = [(root, 0)]
    while stack:
        parent, slot = stack.pop()
        value = parent[slot]  # type: ignore[index]
        if isinstance(value, dict):
            value = {k: (hide(v) if isinstance(k, str) and k.lower() in SECRET_CONDITION_KEYS else v)
                     for k, v in value.items()}
            stack += [(value, k) for k, v in value.items() if isinstance(v, (dict, list))]
        elif isinstance(value, list):
            value = list(value)
            stack += [(value, i) for i, v in enumerate(value) if isinstance(v, (dict, list))]
        parent[slot] = value  # type: ignore[index]
    return root[0]
