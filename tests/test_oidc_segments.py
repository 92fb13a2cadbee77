"""OIDC subjects: what a job presents, and how it matches trusts.

An unknown field of an OIDC ``sub`` (``*``: a fork's project path, a branch, a repository) stands for one value,
text without ``:`` (:func:`graphkit.oidc.subject_value`): it never matches across the fields of a trusted subject.
The matcher is checked against brute-force enumeration over a small alphabet that includes ``:``.  The identity
node's ``subjects`` are those the evaluation uses (:func:`graphkit.cloud.presented_subjects`)."""

from __future__ import annotations

import itertools
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.build import build_graph
from graphkit.iam import ClaimValue, evaluate_conditions, glob_intersects, glob_match
from graphkit.model import EdgeKind
from graphkit.oidc import candidate_subjects, subject_value

ALPHABET = "a:"
PATTERN = st.text(alphabet="a:*?", max_size=4)
REQUEST = st.text(alphabet="a:*", max_size=4)


def _strings(max_len: int):
    for n in range(max_len + 1):
        for t in itertools.product(ALPHABET + "b", repeat=n):
            yield "".join(t)


def _instances(request: str, max_len: int) -> list[str]:
    """Every string of length <= max_len a segment pattern stands for (``*``: any run without ``:``)."""
    rx = re.compile("^" + "".join("[^:]*" if c == "*" else re.escape(c) for c in request) + "$", re.S)
    return [s for s in _strings(max_len) if rx.match(s)]


@settings(max_examples=300, deadline=None)
@given(PATTERN, REQUEST)
def test_segment_intersection_equals_enumeration(policy: str, request: str):
    bound = len(policy) + len(request) + 1  # a shortest common instance is no longer than both patterns together
    brute = any(glob_match(policy, s) for s in _instances(request, bound))
    assert glob_intersects(policy, request, q_segments=True) is brute


@settings(max_examples=300, deadline=None)
@given(PATTERN.filter(lambda p: "?" not in p), REQUEST)
def test_string_like_against_a_segment_pattern_agrees_with_enumeration(policy: str, request: str):
    """StringLike of a trusted value against a request pattern: True only when every instance matches, False only
    when none does (the three-valued answer the trust evaluation gives)."""
    bound = len(policy) + len(request) + 1
    hits = [glob_match(policy, s) for s in _instances(request, bound)]
    got = evaluate_conditions({"StringLike": {"k": [policy]}}, {"k": [ClaimValue(request, pattern="*" in request,
                                                                                    segments=True)]})
    assert got is not False if any(hits) else got is False
    if got is True:
        assert all(hits)


def test_subject_fields_do_not_match_across_colons():
    tag_only = {"StringLike": {"gitlab.com:sub": ["project_path:grp/proj:ref_type:tag:ref:*"]}}
    fork_mr = subject_value("project_path:*:ref_type:branch:ref:*")
    assert (fork_mr.pattern, fork_mr.segments) == (True, True)
    assert evaluate_conditions(tag_only, {"gitlab.com:sub": [fork_mr]}) is False
    # an unknown caller's whole context may be anything: it stays a pattern spanning fields
    assert subject_value("repo:acme/*:*").segments is False
    # GitHub: a branch push never presents a subject that goes on after its ref
    host = "token.actions.githubusercontent.com"
    [push] = candidate_subjects(["repo:acme/app:ref:refs/heads/*"])
    assert push.segments
    assert evaluate_conditions({"StringLike": {f"{host}:sub": ["repo:acme/app:ref:refs/heads/*:environment:prod"]}},
                               {f"{host}:sub": [push]}) is False
    assert evaluate_conditions({"StringLike": {f"{host}:sub": ["repo:acme/app:ref:refs/heads/rel*"]}},
                               {f"{host}:sub": [push]}) is None


def test_gitlab_fork_merge_request_gets_no_edge_to_a_tag_only_trust(tmp_path):
    proj = tmp_path / "ci" / "grp__proj"
    proj.mkdir(parents=True)
    (proj / ".gitlab-ci.yml").write_text(
        "mr:\n  script: echo\n  id_tokens:\n    T:\n      aud: sts.amazonaws.com\n"
        "  rules:\n    - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"\n")

    def role(name: str, op: str, sub: str) -> dict:
        return {"Path": "/", "RoleName": name, "RoleId": f"AROA{name.upper()}",
                "Arn": f"arn:aws:iam::123456789012:role/{name}", "InstanceProfileList": [], "RolePolicyList": [],
                "AttachedManagedPolicies": [], "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{
                    "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                    "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/gitlab.com"},
                    "Condition": {op: {"gitlab.com:sub": sub}}}]}}

    iam = tmp_path / "iam.json"
    iam.write_text(json.dumps({"RoleDetailList": [
        role("gl-tag", "StringLike", "project_path:grp/proj:ref_type:tag:ref:*"),
        role("gl-branch", "StringLike", "project_path:grp/proj:ref_type:branch:ref:*"),
        role("gl-any", "StringLike", "project_path:grp/*")]}))
    g = build_graph({"gitlab-ci": [tmp_path / "ci"], "aws-iam": [iam]}).graph
    got = {e.target.rsplit("/", 1)[1]: e.confidence.value for e in g.edges() if e.kind is EdgeKind.ASSUMES_ROLE}
    assert got == {"gl-any": "certain", "gl-branch": "certain"}  # its own branches too; never the tag-only trust


def test_the_identity_node_shows_the_subjects_the_evaluation_uses(tmp_path):
    """``OIDCIdentity.subjects`` are what the job presents (GitHub "OpenID Connect reference", customizing the
    subject claims: https://docs.github.com/en/actions/reference/security/oidc), computed once
    (:func:`graphkit.cloud.presented_subjects`) for the node and for the trust evaluation."""
    wf = tmp_path / "repos" / "o__a" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "w.yml").write_text("on:\n  push:\n    branches: [main]\npermissions:\n  id-token: write\njobs:\n"
                              "  j:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n")
    (wf / "prt.yml").write_text("on: pull_request_target\npermissions:\n  id-token: write\njobs:\n"
                                "  p:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n")
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: o\n    id: 111\nrepositories:\n"
                   "  - full_name: o/a\n    id: 222\n    visibility: private\n    default_branch: main\n"
                   "    oidc_sub_template:\n      use_default: false\n"
                   "      include_claim_keys: [repository_owner, job_workflow_ref]\n")
    g = build_graph({"github-actions": [tmp_path / "repos"], "runners": [inv]}).graph
    nodes = {n.id.rsplit("#", 1)[1]: n for n in g.nodes() if n.kind == "oidc_identity"}
    assert nodes["j"].subjects == ["repository_owner:o:job_workflow_ref:o/a/.github/workflows/w.yml@refs/heads/main"]
    assert nodes["j"].workflow_subjects == ["repo:o/a:ref:refs/heads/main"]
    # pull_request_target runs on the default branch (main, from the inventory)
    assert nodes["p"].subjects == ["repository_owner:o:job_workflow_ref:o/a/.github/workflows/prt.yml@refs/heads/main"]
    # resolving again changes nothing (the evaluation starts from workflow_subjects)
    from graphkit.cloud import link_cloud
    before = {k: (n.subjects, n.workflow_subjects) for k, n in nodes.items()}
    link_cloud(g)
    assert {n.id.rsplit("#", 1)[1]: (n.subjects, n.workflow_subjects) for n in g.nodes()
            if n.kind == "oidc_identity"} == before
