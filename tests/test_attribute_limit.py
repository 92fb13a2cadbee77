"""``max_attribute_chars`` (graphkit/limits.py): a string a node stores besides its id (a job ``name:``, an OIDC
subject made from a branch filter, an inventory runner label) is bounded where nodes are validated
(graphkit/model/bounds.py), for every source alike: a longer one is left out, one problem naming the file and
place with the value's length and never the value, and nothing else of the file is lost."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphkit import limits
from graphkit.build import build_graph
from graphkit.model import EdgeKind, NodeKind

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme"
LONG = 20_000  # past the default 16,384
REFUSED = "refused: text of {n} characters (limit max_attribute_chars=16384; raise with --limit " \
          "max_attribute_chars=N or GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS); value left out"


@pytest.fixture(autouse=True)
def _limits_read_again():
    yield
    limits.current()


def _inputs(root: Path) -> dict[str, list[Path]]:
    return {"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"],
            "aws-iam": [root / "aws-iam.json"]}


def _hostile_example(tmp: Path) -> Path:
    """The bundled example with three over-long strings: a job ``name:`` and a ``push`` branch filter in
    acme/app's ci.yml (the branch also becomes an OIDC subject of every job with ``id-token: write``), and a
    label of runner build-01-a in the inventory."""
    root = tmp / "acme"
    shutil.copytree(EXAMPLE, root)
    ci = root / "repos/acme__app/.github/workflows/ci.yml"
    text = ci.read_text(encoding="utf-8")
    text = text.replace("    branches: [main]\n", f"    branches: [main, \"{'b' * LONG}\"]\n", 1)
    text = text.replace("  test:\n", f"  test:\n    name: \"{'n' * LONG}\"\n", 1)
    ci.write_text(text, encoding="utf-8")
    inv = root / "inventory.yaml"
    inv.write_text(inv.read_text(encoding="utf-8").replace(
        "labels: [self-hosted, Linux, X64, shared]", f"labels: [self-hosted, Linux, X64, shared, \"{'l' * LONG}\"]",
        1), encoding="utf-8")
    return root


def test_long_attributes_are_left_out_with_one_problem_each(tmp_path):
    original = build_graph(_inputs(EXAMPLE)).graph
    root = _hostile_example(tmp_path)
    result = build_graph(_inputs(root))
    got = sorted((p.file, p.place, p.reason) for p in result.problems)
    assert got == sorted([
        ("acme/app:.github/workflows/ci.yml", "jobs.test (line 17)", "job name: " + REFUSED.format(n=LONG)),
        ("acme/app:.github/workflows/ci.yml", "(line 1)", "workflow triggers: " + REFUSED.format(n=LONG)),
        ("acme/app:.github/workflows/ci.yml", "jobs.test (line 17)", "job triggers: " + REFUSED.format(n=LONG)),
        ("acme/app:.github/workflows/ci.yml", "jobs.lint (line 11)", "job triggers: " + REFUSED.format(n=LONG)),
        (str(root / "inventory.yaml"), "runners[0] (line 114)", "runner labels: " + REFUSED.format(n=LONG)),
    ]), got
    assert not any(c * 100 in str(p) for p in result.problems for c in "bnl")  # never the value
    g = result.graph
    # nothing else is lost: the same nodes and edges as the example's
    assert set(g.nx.nodes) == set(original.nx.nodes)
    assert set(g.nx.edges(keys=True)) == set(original.nx.edges(keys=True))
    assert g.node("runner:acme/build-01-a").labels == original.node("runner:acme/build-01-a").labels
    job = g.node("job:acme/app/.github/workflows/ci.yml#test")
    assert job.name == f"<name of {LONG} characters, left out>"
    assert [t.branches for t in job.triggers if t.event == "push"] == [("main",)]
    assert all(len(s) < 1000 for o in g.nodes(NodeKind.OIDC_IDENTITY) for s in o.subjects)
    assert max(len(str(n.model_dump())) for n in g.nodes()) < LONG
    # the sources that held them are partial: what the values would have linked is unknown, never absent
    assert {k: s.complete for k, s in g.meta.sources.items()} == {"github-actions": False, "runners": False,
                                                                  "aws-iam": True}


def test_the_limit_is_raised_with_its_variable(tmp_path, monkeypatch):
    root = _hostile_example(tmp_path)
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS", str(LONG))
    limits.current()
    result = build_graph(_inputs(root))
    assert result.problems == []
    assert "l" * LONG in result.graph.node("runner:acme/build-01-a").labels
    assert result.graph.node("job:acme/app/.github/workflows/ci.yml#test").name == "n" * LONG


CORPUS = ROOT.parent / "shared" / "corpus"


def test_edge_props_and_evidence_details_are_bounded_too(tmp_path):
    """Two corpus checkouts with over-long values that only edges carry: the ARC ClusterRole ``manager-role``
    and its ClusterRoleBinding renamed to 20,000 characters (the ``reads_secret`` edges' evidence detail
    ``ClusterRole <name>``, the service account's ``subject of <binding>``, and their ``binding`` prop), and
    omnibus-gitlab's ``VAULT_ID_TOKEN`` ``aud`` (the ``mints_oidc`` edges' ``aud`` list).  Each is left out with one problem naming the file and place and the
    length, never the value; the edges are kept, with their other props."""
    k8s = tmp_path / "actions__actions-runner-controller"
    shutil.copytree(CORPUS / "k8s" / k8s.name, k8s)
    for name, old, new in (("role.yaml", "manager-role", "m" * LONG), ("role_binding.yaml", "manager-role", "m" * LONG),
                           ("role_binding.yaml", "manager-rolebinding", "b" * LONG)):
        f = k8s / "config" / "rbac" / name
        text = f.read_text(encoding="utf-8")
        assert f"name: {old}\n" in text
        f.write_text(text.replace(f"name: {old}\n", f"name: {new}\n"), encoding="utf-8")
    omni = tmp_path / "gitlabhq__omnibus-gitlab"
    shutil.copytree(CORPUS / "gitlab-ci" / omni.name, omni)
    ci = omni / ".gitlab-ci.yml"
    text = ci.read_text(encoding="utf-8")
    assert "      aud: https://vault.gitlab.net\n" in text
    ci.write_text(text.replace("      aud: https://vault.gitlab.net\n",
                               f"      aud: https://vault.gitlab.net/{'a' * LONG}\n", 1), encoding="utf-8")
    aud = len(f"https://vault.gitlab.net/{'a' * LONG}")

    result = build_graph({"k8s": [k8s], "gitlab-ci": [omni]})
    binding = str(k8s / "config" / "rbac" / "role_binding.yaml")
    ci_file = "gitlabhq/omnibus-gitlab:.gitlab-ci.yml"
    assert sorted((p.file, p.place, p.reason) for p in result.problems) == sorted([
        (binding, "(line 1)", "evidence detail: " + REFUSED.format(n=len("ClusterRole ") + LONG)),
        (binding, "(line 1)", "evidence detail: " + REFUSED.format(n=len("subject of ") + LONG)),
        (binding, "(line 1)", "reads_secret edge props: " + REFUSED.format(n=len("ClusterRoleBinding/") + LONG)),
        (ci_file, ".vault-integration.id_tokens.VAULT_ID_TOKEN (line 38)",
         "mints_oidc edge props: " + REFUSED.format(n=aud)),
        # the job nodes hold the aud too (node attributes, bounded before)
        (ci_file, "fetch-assets (line 188)", "job gitlab: " + REFUSED.format(n=aud)),
        (ci_file, "generate-facts (line 216)", "job gitlab: " + REFUSED.format(n=aud))])
    assert not any(c * 100 in str(p) for p in result.problems for c in "mba")  # never the value
    g = result.graph
    for e in g.edges():
        assert len(str(e.props)) < 1000 and all(len(ev.detail or "") < 1000 for ev in e.evidence), e.identity
    # the edges are kept: the binding's service account still reads the secrets, the jobs still mint the token
    reads = [e for e in g.edges(EdgeKind.READS_SECRET) if e.evidence[0].file == binding]
    assert len(reads) == 2 and all(e.props == {"via": "rbac"} for e in reads)
    assert all(ev.detail is None for e in reads for ev in e.evidence)
    mints = [e for e in g.edges(EdgeKind.MINTS_OIDC) if e.props.get("token") == "VAULT_ID_TOKEN"]
    assert len(mints) == 2 and all(e.props == {"token": "VAULT_ID_TOKEN", "aud": []} for e in mints)
    assert {k: s.complete for k, s in g.meta.sources.items()} == {"k8s": False, "gitlab-ci": False}


def test_an_over_long_environment_is_unknown_never_none(tmp_path):
    """acme/app's release job with its ``environment: production`` renamed to 20,000 characters: one problem at
    the environment's place; the job's environment is unknown (``*``), not "no environment" (None, before): its
    OIDC ``sub`` is the pattern ``repo:acme/app:environment:*`` (before: no subject at all), each environment
    secret it names may be read (``possible``, from the production environment's list), and the repository
    secret it names is ``possible`` (an environment secret may shadow it; before: certain)."""
    original = build_graph(_inputs(EXAMPLE)).graph
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    release = root / "repos/acme__app/.github/workflows/release.yml"
    text = release.read_text(encoding="utf-8")
    assert "    environment: production\n" in text
    release.write_text(text.replace("    environment: production\n", f"    environment: {'p' * LONG}\n"),
                       encoding="utf-8")
    result = build_graph(_inputs(root))
    assert [(p.file, p.place, p.reason) for p in result.problems] == [
        ("acme/app:.github/workflows/release.yml", "jobs.publish.environment (line 17)",
         "job environment: " + REFUSED.format(n=LONG).removesuffix("value left out")
         + "value left out: the job's environment is unknown (any environment of the repository)")]
    g = result.graph
    jid = "job:acme/app/.github/workflows/release.yml#publish"
    assert original.node(jid).environment == "production"
    assert g.node(jid).environment == "*"
    assert g.node("oidc:acme/app/.github/workflows/release.yml#publish").subjects == [
        "repo:acme/app:environment:*"]
    reads = {e.target: e.confidence.value for e in g.out_edges(jid) if e.kind is EdgeKind.READS_SECRET}
    assert {t: c for t, c in reads.items() if t.startswith(("secret:env:", "secret:repo:"))} == {
        "secret:env:acme/app:production:COSIGN_PRIVATE_KEY": "possible",
        "secret:env:acme/app:production:COSIGN_PASSWORD": "possible",
        "secret:repo:acme/app:PYPI_API_TOKEN": "possible"}
    assert {e.target: e.confidence.value for e in original.out_edges(jid)
            if e.kind is EdgeKind.READS_SECRET}["secret:repo:acme/app:PYPI_API_TOKEN"] == "certain"
    assert not any(c * 100 in str(p) for p in result.problems for c in "p")  # never the value
    assert g.meta.sources["github-actions"].complete is False
