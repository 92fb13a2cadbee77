"""GitLab ``only``/``except`` refs ``PATTERN@PROJECT_PATH`` decided where the checkout's project path is known:
an entry naming another project never matches in this project, one naming this project is its plain pattern
(https://docs.gitlab.com/ci/yaml/deprecated_keywords/#onlyrefs--exceptrefs; gitlab-org/gitlab
``Gitlab::Ci::Build::Policy::Refs#matches_path?`` compares the pipeline's full path as is)."""

from __future__ import annotations

import textwrap

from graphkit.build import build_graph
from graphkit.model import ids

CI = textwrap.dedent("""\
    here:
      script: [deploy]
      only: [main@grp/proj]
    other:
      script: [deploy]
      only: [main@other/proj]
    case:
      script: [deploy]
      only: [main@GRP/proj]
    not_other:
      script: [make]
      except: [main@other/proj]
    not_here:
      script: [make]
      except: [main@grp/proj]
    """)


def _triggers(tmp_path, folder: str, project: str) -> dict[str, list[tuple]]:
    root = tmp_path / folder
    root.mkdir()
    (root / ".gitlab-ci.yml").write_text(CI)
    res = build_graph({"gitlab-ci": [root]})
    assert res.problems == []
    out = {}
    for job in ("here", "other", "case", "not_other", "not_here"):
        node = res.graph.node(ids.gitlab_job(project, ".gitlab-ci.yml", job))
        out[job] = sorted((t.ref_type, tuple(t.refs or ()), tuple(t.refs_excluded), t.confidence.value)
                          for t in node.gitlab.triggers)
    return out


def test_project_path_known_decides_the_project_part(tmp_path):
    found = _triggers(tmp_path, "grp__proj", "grp/proj")
    main = [("branch", ("main",), (), "certain"), ("tag", ("main",), (), "certain")]
    assert found["here"] == main
    assert found["other"] == []  # another project's entry: the job never exists in grp/proj
    assert found["case"] == []  # the path is compared as written
    # except another project's entry excludes nothing here (only: defaults to branches and tags)
    assert found["not_other"] == [("branch", (), (), "certain"), ("tag", (), (), "certain")]
    assert [t for t in found["not_here"] if t[0] == "branch"] == [("branch", (), ("main",), "certain")]


def test_project_path_unknown_stays_undecided(tmp_path):
    found = _triggers(tmp_path, "proj", "local/proj")  # no GROUP__PROJECT name, no origin remote
    assert found["other"] == [("branch", ("main",), (), "possible"), ("tag", ("main",), (), "possible")]
    assert found["here"] == found["other"]
