"""The shared API client (ingest/_api.py) against a real local HTTP server (pytest-httpserver).

Answers are shaped as GitHub documents them: pagination
https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api, rate limits
https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit; bodies
from the REST description's examples (../shared/corpus/github-api/octokit__openapi/, runner-paginated).
"""

from __future__ import annotations

import json
import time

import pytest

from ingest._api import (ApiClient, ApiError, ClientConfig, RateLimitTooLong, RawStore, TokenAuth, Unreadable,
                         link_next, token_from_env)

pytest.importorskip("pytest_httpserver")

FAKE_TOKEN = "_".join(("ghp", "FAKEfakeFAKEfake" + "0" * 22))  # built: no token-shaped literal


def runner(i: int) -> dict:
    """A runner as GET /orgs/{org}/actions/runners lists it (example runner-paginated)."""
    return {"id": i, "name": f"r{i}", "os": "linux", "status": "online", "busy": False,
            "labels": [{"id": 5, "name": "self-hosted", "type": "read-only"}]}


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def client_of(httpserver, tmp_path, waits):
    made: list[ApiClient] = []

    def make(store: bool = True, **config) -> ApiClient:
        cfg = ClientConfig(**{"backoff": 0.0, "max_wait": 5.0, "secondary_wait": 0.5, **config})
        c = ApiClient(httpserver.url_for("/"), auth=TokenAuth(lambda: FAKE_TOKEN),
                      store=RawStore(tmp_path / "raw") if store else None, config=cfg, sleep=waits.append,
                      notify=messages.append)
        made.append(c)
        return c
    messages: list[str] = []
    make.messages = messages  # type: ignore[attr-defined]
    yield make
    for c in made:
        c.close()


def test_link_pagination_merges_pages_and_sends_the_token_in_the_header_only(httpserver, client_of, tmp_path):
    base = httpserver.url_for("/orgs/acme/actions/runners")
    httpserver.expect_request("/orgs/acme/actions/runners", query_string="per_page=2").respond_with_json(
        {"total_count": 3, "runners": [runner(1), runner(2)]},
        headers={"Link": f'<{base}?per_page=2&page=2>; rel="next", <{base}?per_page=2&page=2>; rel="last"'})
    httpserver.expect_request("/orgs/acme/actions/runners", query_string="per_page=2&page=2").respond_with_json(
        {"total_count": 3, "runners": [runner(3)]}, headers={"Link": f'<{base}?per_page=2&page=1>; rel="prev"'})
    c = client_of()
    assert [r["id"] for r in c.items("orgs/acme/actions/runners", "runners", {"per_page": 2})] == [1, 2, 3]
    assert c.fetched == 2
    for req, _ in httpserver.log:
        assert req.headers["Authorization"] == f"Bearer {FAKE_TOKEN}"
        assert FAKE_TOKEN not in req.url
    stored = sorted((tmp_path / "raw").glob("*.json"))
    assert len(stored) == 2
    page = json.loads(stored[0].read_text())
    assert set(page) == {"url", "fetched_at", "status", "headers", "body"}
    assert all(FAKE_TOKEN not in p.read_text() for p in stored)


def test_a_second_run_reads_the_store_and_fetches_nothing(httpserver, client_of):
    httpserver.expect_request("/repos/acme/app").respond_with_json({"id": 7, "full_name": "acme/app"})
    assert client_of().get("repos/acme/app").body["id"] == 7
    again = client_of()
    page = again.get("repos/acme/app")
    assert (page.body["id"], page.stored, again.fetched) == (7, True, 0)
    assert len(httpserver.log) == 1


def test_secondary_rate_limit_waits_retry_after_then_succeeds(httpserver, client_of, waits):
    httpserver.expect_oneshot_request("/orgs/acme").respond_with_json(
        {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
         "documentation_url": "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api"},
        status=403, headers={"Retry-After": "3"})
    httpserver.expect_request("/orgs/acme").respond_with_json({"login": "acme", "id": 1})
    c = client_of()
    assert c.get("orgs/acme").body == {"login": "acme", "id": 1}
    assert waits == [3.0]
    assert "rate limited (HTTP 403): waiting 3s" in client_of.messages[0]


def test_primary_rate_limit_waits_until_reset_and_a_long_wait_is_an_error(httpserver, client_of, waits):
    reset = int(time.time()) + 3600
    httpserver.expect_request("/orgs/acme").respond_with_json(
        {"message": "API rate limit exceeded"}, status=403,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)})
    with pytest.raises(RateLimitTooLong, match="run the same command again later"):
        client_of().get("orgs/acme")
    assert waits == []


def test_secondary_limit_without_headers_waits_the_configured_minute(httpserver, client_of, waits):
    httpserver.expect_oneshot_request("/orgs/acme").respond_with_json(
        {"message": "You have exceeded a secondary rate limit"}, status=429)
    httpserver.expect_request("/orgs/acme").respond_with_json({"login": "acme"})
    assert client_of(secondary_wait=0.25).get("orgs/acme").body == {"login": "acme"}
    assert waits == [0.25]


def test_server_error_is_retried_with_backoff_then_succeeds(httpserver, client_of, waits):
    httpserver.expect_oneshot_request("/orgs/acme").respond_with_data("oops", status=500)
    httpserver.expect_oneshot_request("/orgs/acme").respond_with_data("oops", status=502)
    httpserver.expect_request("/orgs/acme").respond_with_json({"login": "acme"})
    assert client_of(backoff=0.01).get("orgs/acme").body == {"login": "acme"}
    assert waits == [0.01, 0.02]


def test_server_errors_are_bounded(httpserver, client_of, waits):
    httpserver.expect_request("/orgs/acme").respond_with_data("oops", status=503)
    with pytest.raises(ApiError, match="gave up after 3 attempts"):
        client_of(attempts=3).get("orgs/acme")
    assert len(waits) == 2


def test_truncated_json_is_fetched_once_more_then_unreadable(httpserver, client_of):
    httpserver.expect_request("/orgs/acme/actions/runners").respond_with_data(
        '{"total_count": 2, "runners": [{"id": 23, "na', content_type="application/json")
    with pytest.raises(Unreadable, match="not valid JSON twice") as exc:
        client_of().get("orgs/acme/actions/runners")
    assert exc.value.status == 0
    assert len(httpserver.log) == 2


def test_truncated_json_then_a_whole_answer_is_used(httpserver, client_of):
    httpserver.expect_oneshot_request("/orgs/acme").respond_with_data('{"login": "ac', content_type="application/json")
    httpserver.expect_request("/orgs/acme").respond_with_json({"login": "acme"})
    assert client_of().get("orgs/acme").body == {"login": "acme"}


@pytest.mark.parametrize("status", [403, 404])
def test_forbidden_or_missing_is_unreadable_and_not_stored(httpserver, client_of, tmp_path, status):
    httpserver.expect_request("/orgs/acme/actions/runners").respond_with_json(
        {"message": "Resource not accessible by integration",
         "documentation_url": "https://docs.github.com/rest/actions/self-hosted-runners"}, status=status)
    with pytest.raises(Unreadable) as exc:
        client_of().get("orgs/acme/actions/runners")
    assert exc.value.status == status
    assert "Resource not accessible" not in str(exc.value)  # never the body
    assert not list((tmp_path / "raw").glob("*.json"))


def test_bad_credentials_stop_the_collection(httpserver, client_of):
    httpserver.expect_request("/orgs/acme").respond_with_json({"message": "Bad credentials"}, status=401)
    with pytest.raises(ApiError, match="HTTP 401") as exc:
        client_of().get("orgs/acme")
    assert FAKE_TOKEN not in str(exc.value)


def test_map_keeps_order_with_bounded_workers(httpserver, client_of):
    for i in range(6):
        httpserver.expect_request(f"/repos/acme/r{i}").respond_with_json({"id": i})
    c = client_of(concurrency=3)
    assert [p.body["id"] for p in c.map(lambda i: c.get(f"repos/acme/r{i}"), range(6))] == list(range(6))


def test_token_from_env_and_no_token_in_repr():
    assert token_from_env({"GH_TOKEN": " abc "}) == "abc"
    assert token_from_env({"GITHUB_TOKEN": "x", "GH_TOKEN": "y"}) == "x"
    assert token_from_env({}) is None
    assert FAKE_TOKEN not in repr(TokenAuth(lambda: FAKE_TOKEN))


def test_link_next_ignores_other_relations():
    assert link_next({"link": '<https://x/a?page=1>; rel="prev", <https://x/a?page=9>; rel="last"'}, "") is None
    assert link_next({}, "") is None


def test_a_next_link_to_another_host_is_never_followed(httpserver, client_of):
    httpserver.expect_request("/orgs/acme/repos").respond_with_json(
        [{"id": 1}], headers={"Link": '<https://evil.example/steal?page=2>; rel="next"'})
    with pytest.raises(Unreadable, match="another host refused"):
        client_of().items("orgs/acme/repos", None)
    assert len(httpserver.log) == 1


def test_another_pagination_scheme_plugs_in(httpserver, client_of):
    """GitLab paginates with ``X-Next-Page`` (https://docs.gitlab.com/api/rest/#pagination): the collector gives
    ``pages`` its own ``next_url``; headers it needs are kept."""
    httpserver.expect_request("/api/v4/projects", query_string={"page": "2"}).respond_with_json(
        [{"id": 2}], headers={"X-Next-Page": ""})
    httpserver.expect_request("/api/v4/projects").respond_with_json([{"id": 1}], headers={"X-Next-Page": "2"})
    c = client_of()

    def next_page(headers: dict[str, str], url: str) -> str | None:
        page = headers.get("x-next-page")
        return c.url("api/v4/projects", {"page": page}) if page else None
    bodies = [p.body for p in c.pages("api/v4/projects", next_url=next_page)]
    assert bodies == [[{"id": 1}], [{"id": 2}]]


def test_a_timeout_is_retried_with_backoff(waits):
    import httpx

    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        if len(calls) == 1:
            raise httpx.ReadTimeout("timed out", request=request)
        return httpx.Response(200, json={"login": "acme"})
    with ApiClient("https://api.github.test", config=ClientConfig(backoff=0.5), sleep=waits.append,
                   transport=httpx.MockTransport(answer)) as c:
        assert c.get("orgs/acme").body == {"login": "acme"}
    assert (len(calls), waits) == (2, [0.5])
