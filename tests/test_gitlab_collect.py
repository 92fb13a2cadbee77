"""``graphkit collect gitlab`` against a real local HTTP server (pytest-httpserver) serving GitLab-shaped answers.

Answer shapes as the GitLab REST API documents them: groups and projects (https://docs.gitlab.com/api/groups/,
https://docs.gitlab.com/api/projects/), runners (https://docs.gitlab.com/api/runners/), variables
(https://docs.gitlab.com/api/project_level_variables/, https://docs.gitlab.com/api/group_level_variables/),
protected branches and tags, environments, repository files (https://docs.gitlab.com/api/repository_files/);
offset pagination with ``X-Next-Page`` (https://docs.gitlab.com/api/rest/#pagination).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.cli import app
from graphkit.model import ids
from ingest._api import ClientConfig
from ingest.gitlab_api import collect_gitlab

pytest.importorskip("pytest_httpserver")

from werkzeug import Response  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "gitlab"
FAKE_TOKEN = "-".join(("glpat", "FAKEfakeFAKEfake" + "0" * 4))  # built: no token-shaped literal
SECRET_VALUE = "VALUE-THAT-MUST-NEVER-BE-STORED"
FAST = ClientConfig(backoff=0.0, max_wait=5.0, secondary_wait=0.0, concurrency=2)
CI = (FIX / "checkouts" / "app" / ".gitlab-ci.yml").read_text() + "include:\n  - local: /ci/extra.yml\n"
EXTRA = "extra-lint:\n  tags: [linux]\n  script: [lint]\n"


def _file(text: str) -> dict:
    return {"file_name": "x", "encoding": "base64", "content": base64.b64encode(text.encode()).decode(), "ref": "main"}


def _var(key: str, **flags) -> dict:
    return {"key": key, "value": SECRET_VALUE, "variable_type": "env_var", "protected": False, "masked": False,
            "hidden": False, "raw": False, "environment_scope": "*", **flags}


APP = {"id": 7, "path_with_namespace": "acme/platform/app", "visibility": "public", "default_branch": "main"}
LOCKED = {"id": 8, "path_with_namespace": "acme/locked", "visibility": "private", "default_branch": "main"}
ROUTES = {
    "groups/acme": {"id": 1, "full_path": "acme"},
    "groups/acme/descendant_groups": [{"id": 2, "full_path": "acme/platform"}],
    "groups/acme/variables": [_var("GROUP_DEPLOY_KEY", protected=True, masked=True, hidden=True)],
    "groups/acme/platform/variables": [],
    "groups/acme/runners": [{"id": 42}],
    "projects/acme/platform/app/variables": [_var("AWS_PROD_KEY", protected=True, environment_scope="production")],
    "projects/acme/platform/app/protected_branches": [{"id": 1, "name": "main"}, {"id": 2, "name": "release/*"}],
    "projects/acme/platform/app/protected_tags": [{"name": "v*"}],
    "projects/acme/platform/app/environments": [{"id": 1, "name": "production", "tier": "production"}],
    "projects/acme/platform/app/runners": [{"id": 42}, {"id": 44}],
    "projects/acme/platform/app/repository/files/.gitlab-ci.yml": _file(CI),
    "projects/acme/platform/app/repository/files/ci/extra.yml": _file(EXTRA),
    "projects/acme/locked/protected_branches": [], "projects/acme/locked/protected_tags": [],
    "projects/acme/locked/environments": [], "projects/acme/locked/runners": [],
    "runners/42": {"id": 42, "description": "shared-shell-01", "runner_type": "instance_type", "paused": False,
                   "tag_list": ["linux", "shell"], "run_untagged": True, "locked": False,
                   "access_level": "not_protected", "groups": [], "projects": []},
    "runners/44": {"id": 44, "description": "app-k8s", "runner_type": "project_type", "paused": False,
                   "tag_list": ["k8s"], "run_untagged": False, "locked": True, "access_level": "not_protected",
                   "projects": [{"id": 7, "path_with_namespace": "acme/platform/app"}]},
}


def serve(httpserver, seen: list):
    def handler(request):
        seen.append(request)
        assert request.headers.get("Authorization") == f"Bearer {FAKE_TOKEN}"
        path = request.path.removeprefix("/api/v4/")
        if path == "groups/acme/projects":  # two pages, X-Next-Page
            page = request.args.get("page", "1")
            body, nxt = ([APP], "2") if page == "1" else ([LOCKED], "")
            return Response(json.dumps(body), headers={"Content-Type": "application/json", "X-Next-Page": nxt})
        if path in ("projects/acme/locked/variables", "projects/acme/locked/repository/files/.gitlab-ci.yml"):
            return Response(json.dumps({"message": "403 Forbidden"}), status=403, content_type="application/json")
        if path not in ROUTES:
            return Response(json.dumps({"message": "404 Not Found"}), status=404, content_type="application/json")
        return Response(json.dumps(ROUTES[path]), content_type="application/json")
    httpserver.expect_request(re.compile(r"^/api/v4/.*")).respond_with_handler(handler)


def test_collect_gitlab_writes_an_inventory_and_checkouts_that_build(httpserver, tmp_path, monkeypatch):
    monkeypatch.setenv("GITLAB_TOKEN", FAKE_TOKEN)
    seen: list = []
    serve(httpserver, seen)
    out = tmp_path / "snap"
    result = collect_gitlab("acme", out, api_url=httpserver.url_for("").rstrip("/"), config=FAST)
    inv = (out / "inventory.yaml").read_text()
    assert SECRET_VALUE not in inv and FAKE_TOKEN not in inv
    assert not any(SECRET_VALUE in p.read_text() or FAKE_TOKEN in p.read_text() for p in out.rglob("*.json"))
    doc = result.document
    app_entry = next(p for p in doc["gitlab_projects"] if p["full_path"] == "acme/platform/app")
    assert app_entry["protected_branches"] == ["main", "release/*"] and app_entry["protected_tags"] == ["v*"]
    assert app_entry["variables"] == [{"key": "AWS_PROD_KEY", "variable_type": "env_var", "protected": True,
                                       "masked": False, "hidden": False, "raw": False,
                                       "environment_scope": "production"}]
    locked = next(p for p in doc["gitlab_projects"] if p["full_path"] == "acme/locked")
    assert "variables" not in locked  # 403: unknown, never an empty list
    assert sorted((s.place, s.reason.split(":")[0]) for s in result.problems) == \
        [("project:acme/locked", "variables unreadable (HTTP 403)"),
         ("project:acme/locked:.gitlab-ci.yml", "files unreadable (HTTP 403)")]
    assert {r["name"]: r["gitlab"]["runner_type"] for r in doc["runners"]} == \
        {"shared-shell-01": "instance_type", "app-k8s": "project_type"}
    assert (out / "checkouts" / "acme/platform/app" / "ci" / "extra.yml").read_text() == EXTRA
    # offline: the snapshot builds, routes and reaches like hand-written inputs
    res = CliRunner().invoke(app, ["blast-radius", "--gitlab-snapshot", str(out), "--from",
                                   ids.runner(httpserver.host, "shared-shell-01"), "--format", "json"])
    assert res.exit_code in (0, 3), res.output
    reached = {r["id"] for r in json.loads(res.stdout)["reached"]}
    assert "job:gitlab:acme/platform/app:.gitlab-ci.yml#extra-lint" in reached
    assert ids.secret_gitlab(f"{httpserver.host}/acme/platform/app", "AWS_PROD_KEY", "production") in reached
    # a rerun reads every page it holds from raw/: only the unreadable ones are asked again
    before = len(seen)
    collect_gitlab("acme", out, api_url=httpserver.url_for("").rstrip("/"), config=FAST)
    assert sorted(r.path for r in seen[before:]) == ["/api/v4/projects/acme/locked/repository/files/.gitlab-ci.yml",
                                                     "/api/v4/projects/acme/locked/variables"]


def test_collect_gitlab_needs_a_token(tmp_path, monkeypatch):
    monkeypatch.delenv("GITLAB_TOKEN", raising=False)
    res = CliRunner().invoke(app, ["collect", "gitlab", "--group", "acme", "-o", str(tmp_path / "s")])
    assert res.exit_code != 0 and "GITLAB_TOKEN" in res.output


def test_collect_urls_name_their_flag_and_token_and_refuse_cleartext_http(tmp_path, monkeypatch):
    """``collect gitlab --url`` names ``--url`` and GITLAB_TOKEN; plain http (the token in cleartext) is refused by
    both collectors unless the host is loopback (http://localhost serves the tests above)."""
    monkeypatch.setenv("GITLAB_TOKEN", FAKE_TOKEN)
    res = CliRunner().invoke(app, ["collect", "gitlab", "--group", "acme", "-o", str(tmp_path / "s"), "--url",
                                   "ftp://x"])
    assert res.exit_code == 2 and "--url" in res.output and "GITLAB_TOKEN" in res.output
    assert "GITHUB_TOKEN" not in res.output and "--api-url" not in res.output
    res = CliRunner().invoke(app, ["collect", "gitlab", "--group", "acme", "-o", str(tmp_path / "s"), "--url",
                                   "http://gitlab.example.com"])
    assert res.exit_code == 2 and "cleartext" in res.output and not (tmp_path / "s").exists()
    res = CliRunner().invoke(app, ["collect", "github", "--org", "acme", "-o", str(tmp_path / "g"), "--api-url",
                                   "http://ghe.example.com/api/v3"])
    assert res.exit_code == 2 and "cleartext" in res.output and "--api-url" in res.output


def test_a_missing_snapshot_folder_is_named_as_such(tmp_path):
    res = CliRunner().invoke(app, ["build", "--gitlab-snapshot", str(tmp_path / "nope"), "-o", str(tmp_path / "g.json")])
    assert "no such directory" in res.output and "not a readable" not in res.output
