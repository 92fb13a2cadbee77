"""``merge_group``: a writer adds a pull request to the merge queue once it has passed the required branch protection
checks; the merge group runs in the base repository on ``refs/heads/gh-readonly-queue/<base>/...``, with the merge
group's workflow and code and the repository's secrets (GitHub docs "Managing a merge queue",
https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/configuring-pull-request-merges/managing-a-merge-queue;
"Events that trigger workflows", https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#merge_group).

No outsider entry; the writers' entry is possible and names the ``merge-queue-writers`` guard.
"""

from __future__ import annotations

from pathlib import Path

from graphkit.build import build_graph
from graphkit.model import EdgeKind, ids
from graphkit.refs import job_refs

QUEUE = """\
on: {on}
jobs:
  check:
    runs-on: ubuntu-latest
    permissions: {{contents: write, id-token: write}}
    steps:
      - uses: actions/checkout@v3
        with: {{ref: "${{{{ github.event.merge_group.head_sha }}}}"}}
      - run: echo "${{{{ github.event.merge_group.head_commit.message }}}}" "${{{{ github.head_ref }}}}"
        env: {{TOKEN: "${{{{ secrets.DEPLOY }}}}"}}
"""


def _graph(tmp_path: Path, on: str):
    wf = tmp_path / "repos" / "o__r" / ".github" / "workflows" / "q.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(QUEUE.format(on=on))
    res = build_graph({"github-actions": [tmp_path / "repos"]})
    assert res.problems == []
    return res.graph, ids.job("o/r", ".github/workflows/q.yml", "check")


def _entries(graph, jid):
    return sorted((e.source, e.key, e.confidence.value, e.props["event"], tuple(e.props["guards"]))
                  for e in graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER)


def test_a_merge_group_job_is_no_outsider_entry(tmp_path):
    g, jid = _graph(tmp_path, "merge_group")
    assert _entries(g, jid) == [(ids.untrusted("org-member", "o"), "write", "possible", "merge_group",
                                 ("merge-queue-writers", "org-member-write"))]
    assert not [n for n in g.nodes() if n.id.startswith(("untrusted:fork-pr", "untrusted:comment"))]
    # the run holds the repository's secrets, a writing token and OIDC, on the queue's branches
    out = {e.kind for e in g.out_edges(jid)}
    assert {EdgeKind.READS_SECRET, EdgeKind.HAS_TOKEN, EdgeKind.MINTS_OIDC} <= out
    (refs,) = job_refs(g.node(jid), None)
    assert refs.patterns == ("refs/heads/gh-readonly-queue/**/**",)  # any base branch, any group


def test_a_merge_group_beside_pull_request_keeps_the_writers_edge(tmp_path):
    g, jid = _graph(tmp_path, "[pull_request, merge_group]")
    assert _entries(g, jid) == [(ids.untrusted("org-member", "o"), "write", "possible", "pull_request",
                                 ("org-member-write",))]
