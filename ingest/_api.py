"""The shared HTTP client of the API collectors (``collect github``, ``collect gitlab``): read-only GETs.

What it does, once for every collector:

- **Retries** with tenacity (https://tenacity.readthedocs.io/): 5xx answers and timeouts/connection errors are
  retried with exponential backoff (bounded attempts and wait); a body that is not valid JSON (a truncated
  answer) is fetched once more, then the scope is :class:`Unreadable`.
- **Rate limits**, as GitHub documents them
  (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit):
  a 403 or 429 with ``retry-after`` waits that many seconds; with ``x-ratelimit-remaining: 0`` it waits until
  ``x-ratelimit-reset`` (UTC epoch seconds); a secondary limit without either header waits one minute.  Every
  wait is bounded by :attr:`ClientConfig.max_wait` (a longer one is an error that says when to come back) and is
  announced through ``notify``.
- **Pagination**: ``Link: <...>; rel="next"``
  (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api); another scheme
  (GitLab's ``X-Next-Page``) is a ``next_url`` function given to :meth:`ApiClient.pages`.
- **Raw-page store** (:class:`RawStore`): every page read is kept as ``raw/<sha256 of URL>.json`` with the
  request URL, the time, the status, a safe subset of headers and the parsed body: the audit trail, and what
  makes a second run with the same store fetch nothing it already holds.
- **403/404** raise :class:`Unreadable` (status and a short reason, never the body): the collector records the
  scope as unreadable with the permission that would fix it (unknown, never empty).
- **Bounded concurrency**: :meth:`ApiClient.map` runs at most :attr:`ClientConfig.concurrency` requests at once.
- **Tokens** never leave the ``Authorization`` header: not in URLs, the store, messages or ``repr``
  (:class:`TokenAuth`).  :func:`token_from_env` reads ``GITHUB_TOKEN``/``GH_TOKEN``; :class:`GitHubAppAuth`
  exchanges a GitHub App's JWT for an installation token.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import httpx
import tenacity

from graphkit.errors import GraphkitError

__all__ = ["ApiClient", "ApiError", "ClientConfig", "GitHubAppAuth", "Page", "RateLimitTooLong", "RawStore",
           "TokenAuth", "Unreadable", "link_next", "token_from_env"]

#: Response headers kept in the raw store (never ``set-cookie`` or anything echoing credentials).
SAFE_HEADERS = ("content-type", "date", "etag", "last-modified", "link", "retry-after", "x-github-request-id",
                "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-resource",
                "x-ratelimit-used", "x-oauth-scopes", "x-accepted-oauth-scopes", "x-accepted-github-permissions",
                "x-next-page", "x-total-pages", "x-page", "x-per-page", "x-total")
#: Environment variables read for a token, in order (the GitHub CLI's names:
#: https://cli.github.com/manual/gh_help_environment).
TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN")


class ApiError(GraphkitError):
    """The API could not be read at all (network down, a rate limit longer than allowed, a 401)."""


class RateLimitTooLong(ApiError):
    """A rate limit asks for a longer wait than :attr:`ClientConfig.max_wait`."""


class Unreadable(Exception):
    """One scope could not be read: ``status`` (HTTP status, 0 for an unreadable body) and ``reason`` (short,
    never the response body, which may echo input)."""

    def __init__(self, url: str, status: int, reason: str) -> None:
        super().__init__(f"{url}: HTTP {status}: {reason}" if status else f"{url}: {reason}")
        self.url, self.status, self.reason = url, status, reason


class _Retry(Exception):
    """A transient answer: retry after ``wait`` seconds (None: the backoff decides)."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.wait = reason, wait


@dataclass(frozen=True)
class ClientConfig:
    """Bounds of the client.

    ``max_wait``: longest single wait for a rate limit, seconds (longer: :class:`RateLimitTooLong`).
    ``backoff``: first backoff for a 5xx/timeout, seconds (doubled each attempt, capped at ``max_backoff``).
    ``attempts``: tries per request (5xx, timeouts, rate limits).  ``concurrency``: requests at once.
    ``timeout``: seconds per request.  ``secondary_wait``: wait for a secondary rate limit without
    ``retry-after`` (GitHub: "wait for at least one minute").
    """

    max_wait: float = 900.0
    backoff: float = 1.0
    max_backoff: float = 30.0
    attempts: int = 5
    concurrency: int = 4
    timeout: float = 30.0
    secondary_wait: float = 60.0


@dataclass(frozen=True)
class Page:
    """One page: request ``url``, ``status``, safe ``headers`` (lower-case names), parsed ``body``,
    ``fetched_at`` (ISO 8601 UTC) and ``stored`` (read back from the store, not fetched)."""

    url: str
    status: int
    headers: dict[str, str]
    body: Any
    fetched_at: str
    stored: bool = False


# --------------------------------------------------------------------------- tokens


class TokenAuth(httpx.Auth):
    """``Authorization: Bearer <token>`` on every request; the token is never part of ``repr`` or a message."""

    def __init__(self, token: Callable[[], str]) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Iterator[httpx.Request]:
        request.headers["Authorization"] = f"Bearer {self._token()}"
        yield request

    def __repr__(self) -> str:
        return "TokenAuth(<hidden>)"


def token_from_env(environ: dict[str, str] | None = None) -> str | None:
    """The token in ``GITHUB_TOKEN`` or ``GH_TOKEN`` (first set, stripped), else None."""
    env = os.environ if environ is None else environ
    for name in TOKEN_VARIABLES:
        value = (env.get(name) or "").strip()
        if value:
            return value
    return None


class GitHubAppAuth:
    """A GitHub App installation token, minted from the App's private key and renewed before it expires.

    The JWT: RS256, ``iat`` 60 s in the past, ``exp`` at most 10 minutes later, ``iss`` the App id
    (https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app);
    exchanged by ``POST /app/installations/{installation_id}/access_tokens`` for a token valid one hour
    (https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-an-installation-access-token-for-a-github-app).

    Raises
    ------
    ApiError
        (from :meth:`__call__`) for an unreadable key file or a refused exchange (status only).
    """

    def __init__(self, api_url: str, app_id: str, key_file: Path, installation_id: str,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.api_url, self.app_id, self.key_file, self.installation_id = api_url.rstrip("/"), app_id, key_file, \
            installation_id
        self._transport = transport
        self._token: str | None = None
        self._expires = 0.0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"GitHubAppAuth(app_id={self.app_id!r}, installation_id={self.installation_id!r})"

    def _jwt(self) -> str:
        import jwt  # PyJWT[crypto]

        try:
            key = self.key_file.read_bytes()
        except OSError as exc:
            raise ApiError(f"{self.key_file}: {exc.strerror or exc}") from None
        now = int(time.time())
        try:
            return jwt.encode({"iat": now - 60, "exp": now + 540, "iss": str(self.app_id)}, key, algorithm="RS256")
        except (ValueError, TypeError, jwt.PyJWTError):
            raise ApiError(f"{self.key_file}: not a GitHub App private key (PEM RSA)") from None

    def __call__(self) -> str:
        with self._lock:
            if self._token is None or time.time() > self._expires - 300:
                url = f"{self.api_url}/app/installations/{self.installation_id}/access_tokens"
                with httpx.Client(transport=self._transport, timeout=30.0) as c:
                    r = c.post(url, headers={"Authorization": f"Bearer {self._jwt()}",
                                             "Accept": "application/vnd.github+json"})
                if r.status_code != 201:
                    raise ApiError(f"GitHub App installation token refused (HTTP {r.status_code}): check the App id, "
                                   "the installation id and the private key")
                self._token = r.json()["token"]
                self._expires = time.time() + 3600
            return self._token


# --------------------------------------------------------------------------- the raw-page store


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class RawStore:
    """Pages kept as ``<dir>/<sha256 of URL>.json``: ``{"url", "fetched_at", "status", "headers", "body"}``.

    Only 2xx pages are stored (a 403 is asked again next time: the token may have gained the permission).
    Writes are atomic (temporary file, then rename), so an interrupted run leaves whole pages only.
    """

    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def path(self, url: str) -> Path:
        """Where the page of ``url`` is kept."""
        return self.dir / (hashlib.sha256(url.encode("utf-8")).hexdigest() + ".json")

    def get(self, url: str) -> Page | None:
        """The stored page of ``url``, or None (absent or unreadable: fetched again)."""
        p = self.path(url)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            return Page(url=data["url"], status=data["status"], headers=data["headers"], body=data["body"],
                        fetched_at=data["fetched_at"], stored=True)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, page: Page) -> None:
        """Keep ``page`` (atomically)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        p = self.path(page.url)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"url": page.url, "fetched_at": page.fetched_at, "status": page.status,
                                   "headers": page.headers, "body": page.body}, indent=1), encoding="utf-8")
        os.replace(tmp, p)


# --------------------------------------------------------------------------- pagination

_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?([^";]+)"?')


def link_next(response_headers: dict[str, str], url: str) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, else None.

    >>> link_next({"link": '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"'}, "")
    'https://api.github.com/x?page=2'
    """
    for target, rels in _LINK.findall(response_headers.get("link", "")):
        if "next" in rels.split():
            return target
    return None


# --------------------------------------------------------------------------- the client

T = TypeVar("T")
R = TypeVar("R")


class ApiClient:
    """Read-only GETs against one API base URL, with retries, rate limits, pagination and a raw store.

    Parameters
    ----------
    base_url
        e.g. ``https://api.github.com`` or ``https://ghe.example.com/api/v3``; relative paths are joined to it.
    auth
        an :class:`httpx.Auth` (:class:`TokenAuth`) or None (anonymous).
    store
        where pages are kept (and read back on a rerun); None keeps nothing.
    config
        the bounds (:class:`ClientConfig`).
    notify
        called with a one-line message before every wait (rate limits, retries); never holds a token.
    headers
        extra request headers (``Accept``, ``X-GitHub-Api-Version``).
    sleep
        the wait function (tests pass a no-op).
    transport
        an httpx transport (tests).
    """

    def __init__(self, base_url: str, auth: httpx.Auth | None = None, store: RawStore | None = None,
                 config: ClientConfig | None = None, notify: Callable[[str], None] | None = None,
                 headers: dict[str, str] | None = None, sleep: Callable[[float], None] = time.sleep,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.store, self.config = store, config or ClientConfig()
        self.notify = notify or (lambda message: None)
        self._sleep = sleep
        self._http = httpx.Client(auth=auth, headers=headers or {}, timeout=self.config.timeout,
                                  transport=transport, follow_redirects=True)
        self.fetched = 0  # pages fetched from the network (not read back from the store)
        self._count = threading.Lock()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> "ApiClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        """The absolute URL of ``path`` with ``params`` (sorted: one URL per request, for the store)."""
        full = path if "://" in path else f"{self.base_url}/{path.lstrip('/')}"
        return str(httpx.URL(full, params=sorted((params or {}).items()))) if params else full

    # ------------------------------------------------------------ one page
    def get(self, path: str, params: dict[str, Any] | None = None,
            scrub: Callable[[Any], Any] | None = None) -> Page:
        """One page (from the store when it holds it); ``scrub`` rewrites the body before it is kept or returned
        (e.g. drops variable values: only names are ever stored).

        Raises
        ------
        Unreadable
            403/404 (not a rate limit), any other 4xx, or a body that is not JSON twice in a row.
        ApiError
            401 (bad credentials), a rate limit longer than ``max_wait``, or retries exhausted.
        """
        url = self.url(path, params)
        if self.store is not None and (kept := self.store.get(url)) is not None:
            return kept
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry), stop=tenacity.stop_after_attempt(self.config.attempts),
            wait=self._wait, sleep=self._sleep, before_sleep=self._announce, reraise=True)
        invalid = [0]
        try:
            page = retrying(self._fetch, url, invalid)
        except _Retry as exc:
            raise ApiError(f"{url}: gave up after {self.config.attempts} attempts ({exc.reason})") from None
        if scrub is not None:
            page = Page(url=page.url, status=page.status, headers=page.headers, body=scrub(page.body),
                        fetched_at=page.fetched_at)
        if self.store is not None:
            self.store.put(page)
        return page

    def _wait(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retry) and exc.wait is not None:
            return exc.wait
        return min(self.config.backoff * 2 ** (state.attempt_number - 1), self.config.max_backoff)

    def _announce(self, state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0
        self.notify(f"{exc.reason if isinstance(exc, _Retry) else exc}: waiting {wait:.0f}s "
                    f"(attempt {state.attempt_number} of {self.config.attempts})")

    def _fetch(self, url: str, invalid: list[int]) -> Page:
        try:
            r = self._http.get(url)
        except httpx.TimeoutException:
            raise _Retry("timeout") from None
        except httpx.TransportError as exc:
            raise _Retry(f"connection error ({type(exc).__name__})") from None
        with self._count:
            self.fetched += 1
        headers = {k: v for k, v in ((h, r.headers.get(h)) for h in SAFE_HEADERS) if v is not None}
        self._check_status(url, r.status_code, headers, r.text)
        try:
            body = json.loads(r.content) if r.content else None
        except ValueError:
            invalid[0] += 1
            if invalid[0] == 1:
                raise _Retry("truncated or invalid JSON body", wait=0.0) from None
            raise Unreadable(url, 0, "the answer was not valid JSON twice (truncated?)") from None
        return Page(url=url, status=r.status_code, headers=headers, body=body, fetched_at=_now())

    def _check_status(self, url: str, status: int, headers: dict[str, str], text: str) -> None:
        """Raise for anything but 2xx: rate limits and 5xx as :class:`_Retry`, 401 as :class:`ApiError`, other
        4xx as :class:`Unreadable`."""
        if status < 300:
            return
        if status in (403, 429):
            wait = self._rate_limit_wait(headers, text, status)
            if wait is not None:
                if wait > self.config.max_wait:
                    raise RateLimitTooLong(f"rate limited for {wait:.0f}s (more than the {self.config.max_wait:.0f}s "
                                           "allowed): run the same command again later, it resumes")
                raise _Retry(f"rate limited (HTTP {status})", wait=wait)
        if status >= 500:
            raise _Retry(f"HTTP {status}")
        if status == 401:
            raise ApiError(f"{url}: HTTP 401: bad or expired credentials")
        reason = {403: "forbidden (missing permission or plan feature)", 404: "not found (or not visible to this "
                  "token)"}.get(status, "refused")
        raise Unreadable(url, status, reason)

    def _rate_limit_wait(self, headers: dict[str, str], text: str, status: int) -> float | None:
        """Seconds to wait for a rate-limited answer, None when it is not one (a plain permission 403)."""
        if "retry-after" in headers:
            try:
                return max(float(headers["retry-after"]), 0.0)
            except ValueError:
                return self.config.secondary_wait
        if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            try:
                return max(float(headers["x-ratelimit-reset"]) - time.time(), 0.0) + 1.0
            except ValueError:
                return self.config.secondary_wait
        if status == 429 or "secondary rate limit" in text[:2000].lower():
            return self.config.secondary_wait
        return None

    # ------------------------------------------------------------ many pages
    def pages(self, path: str, params: dict[str, Any] | None = None,
              next_url: Callable[[dict[str, str], str], str | None] = link_next,
              max_pages: int = 1000, scrub: Callable[[Any], Any] | None = None) -> Iterator[Page]:
        """Every page of a paginated list, following ``next_url`` (default: the ``Link`` header).

        Raises
        ------
        Unreadable, ApiError
            as :meth:`get`, for any page.
        """
        page: Page | None = self.get(path, params, scrub)
        seen = 0
        while page is not None:
            yield page
            seen += 1
            nxt = next_url(page.headers, page.url)
            page = self.get(nxt, scrub=scrub) if nxt and seen < max_pages else None

    def items(self, path: str, key: str | None, params: dict[str, Any] | None = None,
              scrub: Callable[[Any], Any] | None = None) -> list[Any]:
        """The items of every page: ``body[key]`` (``{"total_count", key: [...]}`` answers) or the body itself
        (a JSON array) when ``key`` is None."""
        found: list[Any] = []
        for page in self.pages(path, params, scrub=scrub):
            body = page.body if key is None else (page.body or {}).get(key)
            if not isinstance(body, list):
                raise Unreadable(page.url, 0, f"unexpected answer shape (no {key or 'array'})")
            found += body
        return found

    def map(self, fn: Callable[[T], R], values: Iterable[T]) -> list[R]:
        """``[fn(v) for v in values]`` with at most :attr:`ClientConfig.concurrency` running at once (order kept)."""
        items: Sequence[T] = list(values)
        if self.config.concurrency <= 1 or len(items) <= 1:
            return [fn(v) for v in items]
        with ThreadPoolExecutor(max_workers=self.config.concurrency) as pool:
            return list(pool.map(fn, items))
