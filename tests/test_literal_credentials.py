"""``literal-credential-in-workflow`` groups by the value written, whatever the CI source and however it is written:
bare, or as the password of a URL (``https://user:VALUE@host``), the finding of one value lists every line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphkit.cli import app
from graphkit.redact import find_credentials, fingerprint

runner = CliRunner()
VALUE = "-".join(("glpat", "Ab3dE" * 4))  # built: no token-shaped literal in the tree


def _findings(tmp_path: Path, flag: str, root: Path) -> list[dict]:
    out = tmp_path / "g.json"
    res = runner.invoke(app, ["build", flag, str(root), "-o", str(out)])
    assert res.exit_code == 0, res.output
    found = runner.invoke(app, ["findings", "-g", str(out), "--rule", "literal-credential-in-workflow",
                                "--format", "json"], catch_exceptions=False)
    for text in (out.read_text(), found.output, res.output):
        assert VALUE not in text and VALUE.lower() not in text
    return json.loads(found.output)["findings"]


def test_one_gitlab_value_bare_and_in_urls_is_one_finding(tmp_path):
    """Fresh-user run: one ``glpat-`` value at lines 3, 4 and 8 of ``.gitlab-ci.yml`` gave a "GitLab Token line 3"
    finding and two "URL credential" findings (the URLs' user names were fingerprinted with the value)."""
    root = tmp_path / "acme__app"
    root.mkdir()
    (root / ".gitlab-ci.yml").write_text(
        "build:\n  script:\n"
        f"    - export TOKEN={VALUE}\n"                                            # line 3
        f"    - git clone https://oauth2:{VALUE}@gitlab.com/acme/lib.git\n"        # line 4
        "    - make\n  tags: [shell]\ndeploy:\n"
        f"  script: [ \"curl https://ci:{VALUE}@gitlab.com/api/v4/x\" ]\n"         # line 8
        "other:\n"
        "  script: [ \"curl https://ci:hunter2hunter2@gitlab.com/api/v4/x\" ]\n")  # line 10: another value
    found = _findings(tmp_path, "--gitlab-ci", root)
    assert sorted((f["message"], f["properties"]["lines"]) for f in found) == [
        ("GitLab Token / URL credential written in .gitlab-ci.yml lines 3, 4, 8", [3, 4, 8]),
        ("URL credential written in .gitlab-ci.yml line 10", [10])]
    (one,) = [f for f in found if f["properties"]["lines"] == [3, 4, 8]]
    assert one["properties"]["fingerprint"] == fingerprint(VALUE.encode())
    assert [e["line"] for e in one["evidence"]] == [3, 4, 8]


def test_a_github_value_bare_and_in_a_url_is_one_finding(tmp_path):
    """The same rule and grouping for a workflow: the value of a URL's password is the value written bare."""
    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                               f"      - run: ./deploy --token {VALUE}\n"                          # line 6
                               f"      - run: git clone https://x:{VALUE}@gitlab.com/acme/lib\n")  # line 7
    (finding,) = _findings(tmp_path, "--github-actions", tmp_path / "acme__app")
    assert finding["properties"]["lines"] == [6, 7]
    assert finding["message"] == "GitLab Token / URL credential written in .github/workflows/ci.yml lines 6, 7"


def test_value_fingerprint_is_the_password_of_a_url_only():
    from ingest._credentials import literal_credentials, value_fingerprint

    text = f"a: https://u:{VALUE}@h/x\nb: https://h/x?private_token=abc:defghij12345\nc: {VALUE}\n"
    ms = find_credentials(text)
    assert [m.kind for m in ms] == ["URL credential", "URL credential", "GitLab Token"]
    assert [value_fingerprint(text, m) for m in ms] == [fingerprint(VALUE.encode()), ms[1].fingerprint,
                                                        fingerprint(VALUE.encode())]
    creds, values = literal_credentials(text, "f.yml", "acme/app", {"": 1})
    assert [c.fingerprint for c in creds] == [fingerprint(VALUE.encode()), ms[1].fingerprint,
                                              fingerprint(VALUE.encode())]
    assert f"u:{VALUE}" in values  # scrubbing still removes the whole userinfo
