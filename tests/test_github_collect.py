"""``graphkit collect github`` against a real local HTTP server serving GitHub-shaped answers (tests/github_server.py).

Done when (issue 12): the snapshot builds the same graph as the equivalent hand-written inventory plus checkouts
(tests/fixtures/github-api/acme-inventory.yaml + examples/acme/repos); unreadable scopes are reported, never
emptied; no token value in any file or output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from github_server import JOBS, ROOT, RUNS, SINCE, forbidden, not_found, serve
from graphkit.build import build_graph
from graphkit.cli import app
from ingest._api import ClientConfig
from ingest.github_api import collect_github

pytest.importorskip("pytest_httpserver")

FAKE_TOKEN = "_".join(("ghp", "FAKEfakeFAKEfake" + "1" * 22))  # built: no token-shaped literal
HAND = ROOT / "tests" / "fixtures" / "github-api" / "acme-inventory.yaml"
FAST = ClientConfig(backoff=0.0, max_wait=5.0, secondary_wait=0.0, concurrency=2)


@pytest.fixture(autouse=True)
def token(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_TOKEN)
    monkeypatch.delenv("GH_TOKEN", raising=False)


def collect(httpserver, out: Path, waits: list | None = None, **kw):
    return collect_github("acme", out, api_url=httpserver.url_for("").rstrip("/"), config=FAST,
                          sleep=(waits if waits is not None else []).append, **kw)


def shape(graph) -> tuple[dict, set]:
    """Nodes (id -> fields without evidence) and edges (kind, source, target, key, confidence)."""
    nodes = {n.id: n.model_dump(mode="json", exclude={"evidence"}) for n in graph.nodes()}
    edges = {(e.kind.value, e.source, e.target, e.key, e.confidence.value) for e in graph.edges()}
    return nodes, edges


def test_snapshot_builds_the_same_graph_as_the_hand_written_inventory_and_checkouts(httpserver, tmp_path):
    serve(httpserver)
    result = collect(httpserver, tmp_path / "snap")
    assert result.problems == []
    assert result.summary["repositories"] == 3 and result.summary["runners"] == 3
    assert result.summary["apps that can register runners"] == 1  # the autoscaler App (github_server.py)
    snap = build_graph({"github-snapshot": [str(tmp_path / "snap")]})
    hand = build_graph({"github-actions": [str(ROOT / "examples" / "acme" / "repos")], "runners": [str(HAND)]})
    assert snap.problems == [] and hand.problems == []
    snap_nodes, snap_edges = shape(snap.graph)
    hand_nodes, hand_edges = shape(hand.graph)
    # the one difference: the API lists a runner's labels exactly (self-hosted only when listed), a hand-written
    # inventory implies self-hosted (Runner.labels_exact); every example runner lists it, so routing is the same
    assert {k: v.pop("labels_exact") for k, v in snap_nodes.items() if k.startswith("runner:")} == {
        "runner:acme/build-01-a": True, "runner:acme/build-01-b": True, "runner:acme/eph-7f3a": True}
    assert {k: v.pop("labels_exact") for k, v in hand_nodes.items() if k.startswith("runner:")} == {
        "runner:acme/build-01-a": None, "runner:acme/build-01-b": None, "runner:acme/eph-7f3a": None}
    assert set(snap_nodes) == set(hand_nodes)
    assert snap_nodes == hand_nodes
    assert snap_edges == hand_edges
    assert "runner:acme/build-01-a" in snap_nodes and len(snap_edges) > 20


def test_snapshot_layout_and_contents(httpserver, tmp_path):
    serve(httpserver)
    collect(httpserver, tmp_path / "snap")
    snap = tmp_path / "snap"
    meta = json.loads((snap / "snapshot.json").read_text())
    assert meta["schema"] == "graphkit.github-snapshot/v1" and meta["org"] == "acme"
    assert meta["repos"] == ["acme/app", "acme/docs", "acme/infra"]
    assert {s["status"] for s in meta["scopes"]} == {"ok"}
    assert (snap / "checkouts" / "acme" / "app" / ".github" / "workflows" / "release.yml").read_bytes() == \
        (ROOT / "examples/acme/repos/acme__app/.github/workflows/release.yml").read_bytes()
    inv = yaml.safe_load((snap / "inventory.yaml").read_text())
    runners = {r["name"]: r for r in inv["runners"]}
    assert runners["eph-7f3a"]["ephemeral"] is True and runners["eph-7f3a"]["runner_group"] == "shared-linux"
    assert [x["name"] for x in runners["build-01-a"]["labels"]] == ["self-hosted", "Linux", "X64", "shared"]
    raw = [json.loads(p.read_text()) for p in (snap / "raw").glob("*.json")]
    variables = [p for p in raw if p["url"].split("?")[0].endswith("/orgs/acme/actions/variables")]
    assert variables[0]["body"]["variables"] == [{"name": "REGION", "visibility": "all"}]  # never the value
    assert not [p for p in snap.rglob("*") if p.is_file() and "CANARY-7f1e" in p.read_text()]  # the value, anywhere
    assert all(set(p) == {"url", "fetched_at", "status", "headers", "body"} for p in raw)
    assert not (snap / "history").exists()  # no --since


def test_pagination_rate_limit_server_error_and_truncated_body_are_survived(httpserver, tmp_path):
    from werkzeug import Response

    httpserver.expect_oneshot_request("/orgs/acme/actions/runner-groups").respond_with_response(Response(
        json.dumps({"message": "You have exceeded a secondary rate limit."}), status=403,
        headers={"Retry-After": "2"}, content_type="application/json"))
    httpserver.expect_oneshot_request("/repos/acme/docs/actions/secrets").respond_with_data("boom", status=500)
    httpserver.expect_oneshot_request("/repos/acme/infra/environments").respond_with_data(
        '{"total_count": 1, "environ', content_type="application/json")
    serve(httpserver)
    waits: list[float] = []
    result = collect(httpserver, tmp_path / "snap", waits)
    assert result.problems == []
    assert 2.0 in waits  # Retry-After honoured
    inv = yaml.safe_load((tmp_path / "snap" / "inventory.yaml").read_text())
    assert {r["name"] for r in inv["runners"]} == {"build-01-a", "build-01-b", "eph-7f3a"}  # both Link pages
    assert [r["secrets"] for r in inv["repositories"]] == [["PYPI_API_TOKEN", "CODECOV_TOKEN"],
                                                           ["ALGOLIA_ADMIN_KEY"], ["KUBE_CONFIG_STAGING"]]
    assert inv["repositories"][2]["environments"][0]["name"] == "production"


def test_forbidden_runners_are_unknown_reported_and_never_emptied(httpserver, tmp_path):
    serve(httpserver, {"/orgs/acme/actions/runners": forbidden()})
    result = collect(httpserver, tmp_path / "snap")
    snap = tmp_path / "snap"
    meta = json.loads((snap / "snapshot.json").read_text())
    bad = [s for s in meta["scopes"] if s["status"] != "ok"]
    assert [(s["resource"], s["scope"], s["http_status"]) for s in bad] == [("runners", "org:acme", 403)]
    assert "Self-hosted runners (read)" in bad[0]["fix"] and "admin:org" in bad[0]["fix"]
    assert len(result.problems) == 1 and "fix:" in result.problems[0].reason
    inv = yaml.safe_load((snap / "inventory.yaml").read_text())
    assert inv["organizations"][0]["runners_complete"] is False
    assert inv["runners"] == []  # no runner listed, and the list is not claimed complete
    built = build_graph({"github-snapshot": [str(snap)]})
    assert built.partial
    assert any("runners of org:acme unreadable (HTTP 403)" in p.reason and "admin:org" in p.reason
               for p in built.problems)
    # jobs on self-hosted labels still reach a runner: an inferred pool, possible, never "no runner"
    pools = set(built.graph.meta.resolve.inferred_pools)
    assert pools, "an unknown runner list must leave possible runners"


def test_unreadable_secrets_and_environments_stay_unknown(httpserver, tmp_path):
    serve(httpserver, {"/orgs/acme/actions/secrets": forbidden(), "/repos/acme/app/environments": not_found()})
    collect(httpserver, tmp_path / "snap")
    inv = yaml.safe_load((tmp_path / "snap" / "inventory.yaml").read_text())
    org, app_repo = inv["organizations"][0], inv["repositories"][0]
    assert (org["secrets"], org["secrets_complete"]) == (None, False)
    assert app_repo["environments"] is None


def test_job_history_and_audit_log_in_the_contract_shapes(httpserver, tmp_path):
    serve(httpserver)
    result = collect(httpserver, tmp_path / "snap", since=SINCE)
    hist = tmp_path / "snap" / "history" / "acme" / "app"
    runs = json.loads((hist / "runs.json").read_text())
    assert runs == {"total_count": 1, "workflow_runs": RUNS["app"]}
    jobs = json.loads((hist / "jobs" / "9001.json").read_text())
    assert jobs == {"total_count": 2, "jobs": JOBS[9001]}
    on_runner = [j["name"] for j in jobs["jobs"] if j["runner_name"] == "build-01-a"]
    assert on_runner == ["test"]
    assert json.loads((tmp_path / "snap" / "history" / "acme" / "docs" / "runs.json").read_text()) == \
        {"total_count": 0, "workflow_runs": []}
    audit = json.loads((tmp_path / "snap" / "audit-log" / "acme.json").read_text())
    assert audit[0]["action"] == "org.register_self_hosted_runner" and audit[0]["actor"] == "mallory"
    assert len(audit) == 1  # the local server answers every phrase with the same event: kept once
    assert (result.summary["runs"], result.summary["jobs"]) == (1, 2)
    created = [r for r, _ in httpserver.log if r.path == "/repos/acme/app/actions/runs"]
    assert created[0].args["created"] == f">={SINCE}"


def test_audit_log_on_a_plan_without_it_is_unreadable_and_absent(httpserver, tmp_path):
    serve(httpserver, {"/orgs/acme/audit-log": not_found()})
    result = collect(httpserver, tmp_path / "snap", since=SINCE)
    assert not (tmp_path / "snap" / "audit-log").exists()
    assert [p.place for p in result.problems] and "audit-log of org:acme unreadable (HTTP 404)" in \
        result.problems[0].reason


def test_a_second_run_resumes_and_fetches_nothing_already_stored(httpserver, tmp_path):
    serve(httpserver)
    first = collect(httpserver, tmp_path / "snap")
    assert first.summary["pages fetched"] > 30
    before = len(httpserver.log)
    second = collect(httpserver, tmp_path / "snap")
    assert second.summary["pages fetched"] == 0 and len(httpserver.log) == before
    assert (tmp_path / "snap" / "inventory.yaml").read_text() != ""


def test_cli_collects_without_the_token_anywhere(httpserver, tmp_path):
    serve(httpserver, {"/orgs/acme/actions/runners": forbidden()})
    out = tmp_path / "snap"
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "--api-url",
                                   httpserver.url_for("").rstrip("/"), "--since", SINCE, "-o", str(out),
                                   "--max-wait", "1"])
    assert res.exit_code == 3, res.output  # partial: one scope unreadable
    assert "GitHub snapshot written to" in res.output and "unreadable" in res.output
    assert "admin:org" in res.output
    built = CliRunner().invoke(app, ["blast-radius", "--github-snapshot", str(out), "--from",
                                     "runner:acme/build-01-a"])
    # the runner list was unreadable, but the job history saw a job on build-01-a: the runner is known from it
    assert built.exit_code == 3 and "runners of org:acme unreadable (HTTP 403)" in built.output
    assert FAKE_TOKEN not in res.output + built.output
    for p in out.rglob("*"):
        if p.is_file():
            assert FAKE_TOKEN not in p.read_text(errors="replace"), p
    for req, _ in httpserver.log:
        assert FAKE_TOKEN not in req.url


def test_an_organization_that_is_not_there_is_an_error_and_writes_nothing(httpserver, tmp_path):
    """``GET /orgs/{org}`` answering 404 (a mistyped ``--org``, or an organization the token cannot see) ends the
    collection with an error (exit 1) that says so, not a "partial" snapshot of an empty organization with
    permission hints (newuser-s29 defect 13).  With ``--repos`` the owner may be a user account (whose
    ``/orgs/`` is 404 too): the named repositories are still read."""
    serve(httpserver, {"/orgs/acme": not_found()})
    out = tmp_path / "snap"
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "--api-url",
                                   httpserver.url_for("").rstrip("/"), "-o", str(out), "--max-wait", "1"])
    assert res.exit_code == 1, res.output
    assert "organization 'acme' not found at" in res.output and "or not visible to this token" in res.output
    assert "partial" not in res.output and "fix:" not in res.output
    assert not (out / "snapshot.json").exists()
    assert [req.path for req, _ in httpserver.log] == ["/orgs/acme"]  # nothing else asked of it
    subset = collect(httpserver, tmp_path / "subset", repos=["acme/app"])
    assert "acme/app" in subset.document["repos"]
    assert any(p.reason.startswith("organization of org:acme unreadable (HTTP 404)") for p in subset.problems)


def test_blast_radius_reads_the_snapshot_directly(httpserver, tmp_path):
    serve(httpserver)
    collect(httpserver, tmp_path / "snap")
    res = CliRunner().invoke(app, ["blast-radius", "--github-snapshot", str(tmp_path / "snap"), "--from",
                                   "runner:acme/build-01-a", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert {"secret:org:acme:TF_STATE_TOKEN", "secret:env:acme/app:production:COSIGN_PRIVATE_KEY"} <= \
        {r["id"] for r in doc["reached"]}


def test_bad_usage_is_refused():
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "-o", "x", "--api-url",
                                   "https://user:pw@ghe.example.com/api/v3"])
    assert res.exit_code == 2 and "pw" not in res.output
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "-o", "x", "--app-id", "1"])
    assert res.exit_code == 2
    for org in ("..", "acme/app", "-acme"):
        assert CliRunner().invoke(app, ["collect", "github", "--org", org, "-o", "x"]).exit_code == 2
    assert CliRunner().invoke(app, ["collect", "github", "--org", "acme", "--repo", "acme/..", "-o", "x"]).exit_code == 2


def test_github_app_installation_token_is_used_and_never_written(httpserver, tmp_path, monkeypatch):
    """App auth: a JWT signed with the App's key (RS256, iss = app id) buys an installation token
    (https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-an-installation-access-token-for-a-github-app)."""
    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    monkeypatch.delenv("GITHUB_TOKEN")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "app.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    installation_token = "_".join(("ghs", "FAKEinstallationTOKEN" + "0" * 15))
    seen: list[dict] = []

    def mint(request):
        from werkzeug import Response

        claims = jwt.decode(request.headers["Authorization"].split()[1], key.public_key(), algorithms=["RS256"])
        seen.append(claims)
        return Response(json.dumps({"token": installation_token, "expires_at": "2026-12-02T01:00:00Z",
                                    "permissions": {"organization_self_hosted_runners": "read"}}), status=201,
                        content_type="application/json")
    httpserver.expect_request("/app/installations/55/access_tokens", method="POST").respond_with_handler(mint)
    serve(httpserver)
    result = collect(httpserver, tmp_path / "snap", app=("42", str(pem), "55"))
    assert result.problems == []
    assert seen[0]["iss"] == "42" and seen[0]["exp"] - seen[0]["iat"] <= 600
    gets = [r for r, _ in httpserver.log if r.method == "GET"]
    assert gets and all(r.headers["Authorization"] == f"Bearer {installation_token}" for r in gets)
    for p in (tmp_path / "snap").rglob("*"):
        if p.is_file():
            assert installation_token not in p.read_text(errors="replace")


def test_without_any_token_it_says_so_and_reads_anonymously(httpserver, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    serve(httpserver)
    said: list[str] = []
    collect(httpserver, tmp_path / "snap", notify=said.append)
    assert any("anonymous" in m for m in said)
    assert all("Authorization" not in r.headers for r, _ in httpserver.log)


def test_the_summary_lists_unreadable_scopes_with_their_fix(httpserver, tmp_path):
    serve(httpserver, {"/repos/acme/app/actions/secrets": forbidden()})
    collect(httpserver, tmp_path / "snap")
    res = CliRunner().invoke(app, ["blast-radius", "--github-snapshot", str(tmp_path / "snap"), "--from",
                                   "runner:acme/build-01-a"])
    assert res.exit_code == 3, res.output
    summary = res.output.split("Revocation plan")[0]
    assert "secrets of repo:acme/app unreadable (HTTP 403)" in summary
    assert "fix: fine-grained/App: organization Secrets (read), repository Secrets (read)" in summary
    # what the unread list held is possible, never absent: the job's secret reference stays a possible secret
    inv = yaml.safe_load((tmp_path / "snap" / "inventory.yaml").read_text())
    assert (inv["repositories"][0]["secrets"], inv["repositories"][0]["secrets_complete"]) == (None, False)
    built = build_graph({"github-snapshot": [str(tmp_path / "snap")]}).graph
    assert {"secret:acme/app:PYPI_API_TOKEN", "secret:acme/app:CODECOV_TOKEN"} <= \
        set(built.meta.resolve.unknown_secrets)  # scope unknown, still read by the jobs


def test_on_one_terminal_each_unreadable_scope_is_named_once(httpserver, tmp_path):
    """stdout and stderr on one terminal: the skipped scopes are named on stderr (with their fix) and the
    summary counts them instead of naming them again (newuser-s29 defect 13: nine scopes printed twice); piped,
    the summary names them (the test above)."""
    from test_hostile_names import run_on_pty
    serve(httpserver, {"/repos/acme/app/actions/secrets": forbidden(), "/orgs/acme/actions/variables": forbidden()})
    collect(httpserver, tmp_path / "snap")
    shown = run_on_pty(["blast-radius", "--github-snapshot", "snap", "--from", "runner:acme/build-01-a"], tmp_path)
    assert shown.count("secrets of repo:acme/app unreadable (HTTP 403)") == 1
    assert shown.count("variables of org:acme unreadable (HTTP 403)") == 1
    assert "2 unreadable scope(s), each named above with its fix" in shown


def test_readme_lists_the_permission_of_every_resource():
    from ingest.github_api import RESOURCES

    readme = (ROOT / "README.md").read_text()
    for r in RESOURCES.values():
        assert f"| `{r.name}` |" in readme and r.fix in readme and r.doc in readme, r.name


def test_collected_job_history_splits_exposed_from_reachable_and_rotates_exposed_first(httpserver, tmp_path):
    """The job history collected with --since reaches the analysis through --github-snapshot (github-history
    source): job ``test`` of acme/app ran on build-01-a (tests/github_server.py JOBS), so its CODECOV_TOKEN is
    exposed; PYPI_API_TOKEN (release job, never ran there) is only reachable, and the plan rotates the exposed one
    first."""
    serve(httpserver)
    collect(httpserver, tmp_path / "snap", since=SINCE)
    res = CliRunner().invoke(app, ["blast-radius", "--github-snapshot", str(tmp_path / "snap"), "--from",
                                   "runner:acme/build-01-a", "--since", "2026-12-01T00:00:00Z", "--now",
                                   "2026-12-01T20:00:00Z", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["exposure"]["known"] is True
    assert [(r["job"], r["runner"], r["job_id"]) for r in doc["exposure"]["runs"]] == \
        [("job:acme/app/.github/workflows/ci.yml#test", "runner:acme/build-01-a", 70001)]
    status = {r["id"]: r.get("exposure") for r in doc["reached"]}
    assert status["secret:repo:acme/app:CODECOV_TOKEN"] == "exposed"
    assert status["secret:repo:acme/app:PYPI_API_TOKEN"] == "reachable"
    rotations = [s["target"] for s in doc["revocations"] if s["action"] == "rotate_secret"]
    assert rotations[0] == "secret:repo:acme/app:CODECOV_TOKEN"


def test_collected_audit_log_flags_a_runner_registered_outside_the_inventory(httpserver, tmp_path):
    serve(httpserver)
    collect(httpserver, tmp_path / "snap", since=SINCE)
    res = CliRunner().invoke(app, ["findings", "--github-snapshot", str(tmp_path / "snap"), "--format", "json"])
    found = json.loads(res.stdout)["findings"]
    unexpected = [f for f in found if f["rule"] == "runner-registration-unexpected"]
    assert unexpected and any("sneaky" in f["subject"] or "sneaky" in f["message"] for f in unexpected)


def test_a_stopped_collection_says_so_and_the_rerun_resumes(httpserver, tmp_path):
    """A primary rate limit longer than --max-wait stops the run (x-ratelimit-reset in an hour); snapshot.json
    records a pending scope; the same command later fetches only what it did not have."""
    import time as _time

    from werkzeug import Response

    from ingest._api import RateLimitTooLong

    limited = Response(json.dumps({"message": "API rate limit exceeded"}), status=403, content_type="application/json",
                       headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(_time.time()) + 3600)})
    httpserver.expect_oneshot_request("/repos/acme/app/git/trees/main").respond_with_response(limited)
    serve(httpserver)
    with pytest.raises(RateLimitTooLong):
        collect(httpserver, tmp_path / "snap")
    meta = json.loads((tmp_path / "snap" / "snapshot.json").read_text())
    assert meta["scopes"][-1]["status"] == "pending" and "run the same command again" in meta["scopes"][-1]["reason"]
    built = build_graph({"github-snapshot": [str(tmp_path / "snap")]})
    assert any("collection of org:acme pending" in p.reason for p in built.problems)
    first = [r.url for r, _ in httpserver.log]
    result = collect(httpserver, tmp_path / "snap")
    again = [r.url for r, _ in httpserver.log][len(first):]
    assert result.problems == [] and result.summary["pages fetched"] == len(again)
    assert not set(again) & {u for u in first if "/git/trees/" not in u}  # nothing read twice but the refused page


def test_a_workflow_file_without_content_is_reported_never_dropped_silently(httpserver, tmp_path):
    """Files over 1 MB come back with ``encoding: none`` and no content
    (https://docs.github.com/en/rest/repos/contents#get-repository-content)."""
    serve(httpserver, {"/repos/acme/docs/contents/.github/workflows/preview.yml": {
        "type": "file", "encoding": "none", "content": "", "size": 2_000_000, "name": "preview.yml",
        "path": ".github/workflows/preview.yml"}})
    result = collect(httpserver, tmp_path / "snap")
    assert not (tmp_path / "snap" / "checkouts" / "acme" / "docs" / ".github" / "workflows" / "preview.yml").exists()
    assert [p.reason.split(":")[0] for p in result.problems] == ["workflow-files of repo"]
    assert ".github/workflows/preview.yml: no base64 UTF-8 content returned" in result.problems[0].reason


def test_hostile_paths_from_the_api_never_leave_the_snapshot(httpserver, tmp_path):
    from github_server import REPOSITORIES, routes

    evil_tree = routes()["/repos/acme/app/git/trees/main"]
    evil_tree = {**evil_tree, "tree": [*evil_tree["tree"],
                                       {"path": "../../../escape/action.yml", "type": "blob", "sha": "d" * 40},
                                       {"path": "/abs/action.yml", "type": "blob", "sha": "d" * 40}]}
    evil_repo = {**REPOSITORIES[0], "id": 6666, "name": "..", "full_name": "acme/.."}
    serve(httpserver, {"/repos/acme/app/git/trees/main": evil_tree,
                       "/orgs/acme/repos": [*REPOSITORIES, evil_repo]})
    result = collect(httpserver, tmp_path / "snap")
    assert [p.reason.split(";")[0] for p in result.problems] == \
        ["repositories of org:acme unreadable: 1 repository name(s) GitHub does not allow were left out"]
    written = {p.resolve() for p in tmp_path.rglob("*")}
    assert all(str(p).startswith(str((tmp_path / "snap").resolve())) for p in written)
    assert not (tmp_path / "escape").exists()
    requested = {r.path for r, _ in httpserver.log}
    assert not any("escape" in p or p.startswith("/abs") for p in requested)  # never even asked for


def test_unreadable_runner_groups_leave_each_runner_in_an_unknown_group_never_default(httpserver, tmp_path):
    serve(httpserver, {"/orgs/acme/actions/runner-groups": forbidden()})
    collect(httpserver, tmp_path / "snap")
    inv = yaml.safe_load((tmp_path / "snap" / "inventory.yaml").read_text())
    assert inv["organizations"][0]["runner_groups"] is None
    assert {r["name"]: r["runner_group"] for r in inv["runners"]} == {
        "build-01-a": "runner-group-2", "build-01-b": "runner-group-3", "eph-7f3a": "runner-group-2"}
    g = build_graph({"github-snapshot": [str(tmp_path / "snap")]}).graph
    assert g.node("runner_group:acme/runner-group-2").inferred  # access settings unknown


def test_a_capped_run_list_is_a_partial_history(httpserver, tmp_path):
    """GitHub lists at most 1,000 runs for a search with ``created``
    (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository)."""
    serve(httpserver, {"/repos/acme/app/actions/runs": {"total_count": 1500, "workflow_runs": RUNS["app"]}})
    result = collect(httpserver, tmp_path / "snap", since=SINCE)
    assert [p.reason.split(";")[0] for p in result.problems] == [
        "workflow-runs of repo:acme/app unreadable: 1 of 1500 runs listed (GitHub lists at most 1,000 per search): "
        "narrow --since"]
    runs = json.loads((tmp_path / "snap" / "history" / "acme" / "app" / "runs.json").read_text())
    assert runs["total_count"] == 1  # what the file holds, all pages merged


def test_a_body_that_is_never_json_is_unreadable_without_a_permission_fix(httpserver, tmp_path):
    """Only a refusal (401/403/404) is fixed by a permission; a malformed answer says what it is."""
    from werkzeug import Response
    serve(httpserver, {"/repos/acme/app/actions/secrets": Response("<html>proxy</html>", status=200,
                                                                    content_type="application/json")})
    result = collect(httpserver, tmp_path / "snap")
    [p] = result.problems
    assert "secrets of repo:acme/app unreadable" in p.reason and "not valid JSON" in p.reason
    assert "fix:" not in p.reason and "Secrets (read)" not in p.reason
    scope = next(s for s in result.document["scopes"] if s["status"] != "ok")
    assert (scope["http_status"], scope["fix"]) == (None, "")


def test_the_anonymous_notice_is_a_warning(httpserver, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    serve(httpserver)
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "--api-url",
                                   httpserver.url_for("").rstrip("/"), "-o", str(tmp_path / "snap"),
                                   "--max-wait", "1"])
    line = next(x for x in res.output.splitlines() if "GITHUB_TOKEN" in x)
    assert line.startswith("warning no GITHUB_TOKEN/GH_TOKEN") and "wait" not in line


def _bad_snapshot(tmp_path: Path, doc, parts: bool = False) -> Path:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "snapshot.json").write_text(json.dumps(doc))
    if parts:
        (root / "inventory.yaml").write_text(HAND.read_text())
        (root / "checkouts").mkdir()
    return root


def _build(root: Path):
    res = CliRunner().invoke(app, ["build", "--github-snapshot", str(root), "-o", str(root.parent / "g.json")])
    return res, build_graph({"github-snapshot": [str(root)]}).problems


def test_a_malformed_snapshot_is_an_input_problem_never_a_complete_graph(tmp_path):
    res, problems = _build(_bad_snapshot(tmp_path, {"schema": "graphkit.github-snapshot/v1", "org": "acme",
                                                    "scopes": "x"}))
    assert res.exit_code == 1, res.output  # nothing else was given: nothing could be read
    assert "nothing could be read" in res.output
    places = {(Path(p.file).name, p.place) for p in problems}
    assert ("snapshot.json", "scopes") in places  # not a list
    assert "snapshot.json: scopes" in res.output


def test_a_snapshot_without_inventory_or_checkouts_leaves_them_unknown(tmp_path):
    res, problems = _build(_bad_snapshot(tmp_path, {"schema": "graphkit.github-snapshot/v1", "org": "acme",
                                                    "scopes": []}))
    assert res.exit_code == 3, res.output
    reasons = {Path(p.file).name: p.reason for p in problems}
    assert reasons["inventory.yaml"].startswith("missing: the runners of acme are unknown")
    assert reasons["checkouts"].startswith("missing: the workflow files of acme are unknown")


def test_bad_scope_records_are_problems_at_their_index(tmp_path):
    scopes = [{"resource": "runners", "scope": "org:acme", "status": "unreadable"}, 5,
              {"resource": "secrets", "scope": "repo:acme/app", "status": "maybe"}]
    res, problems = _build(_bad_snapshot(tmp_path, {"schema": "graphkit.github-snapshot/v1", "org": "acme",
                                                    "scopes": scopes}, parts=True))
    assert res.exit_code == 3, res.output
    got = {p.place: p.reason for p in problems if Path(p.file).name == "snapshot.json"}
    assert got["scopes[0]"] == "runners of org:acme unreadable"  # no reason or fix recorded: none invented
    assert "scopes[1]" in got and "scopes[2].status" in got
    assert "None" not in "".join(got.values())
