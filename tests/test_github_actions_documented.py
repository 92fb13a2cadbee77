"""GitHub Actions forms where graphkit disagreed with what GitHub documents, each found in a public bug report of
a tool in this field, with the smallest workflow that shows it (real shapes) and the values GitHub's docs give.

- YAML merge keys (``<<``): GitHub reads anchors and aliases, not merge keys
  (https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations#yaml-anchors-and-aliases;
  https://github.com/actions/runner/issues/1182, https://github.com/Cotal-AI/Cotal/issues/1396).
"""

from __future__ import annotations

import pytest

from graphkit.errors import InputError
from ingest.github_actions import parse_workflow
from ingest.github_actions.parse import MERGE_KEY_REASON

MERGED_JOB = """\
on:
  pull_request_target:
jobs:
  a: &base
    runs-on: [self-hosted, linux]
    steps:
      - run: make
  b:
    <<: *base
    runs-on: [self-hosted, gpu]
"""


@pytest.mark.parametrize("text, line", [
    (MERGED_JOB, 9),
    # a merge key in a step's env (the shape of the Cotal and smcleod.net reports)
    ("on: push\nenv: &common\n  A: '1'\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: env\n"
     "        env:\n          <<: *common\n          B: '2'\n", 10),
    # a merge of an inline mapping (no alias) and a list of aliases
    ("on: push\njobs:\n  a:\n    <<: {runs-on: ubuntu-latest}\n    steps: [{run: x}]\n", 4),
    ("on:\n  push: &p {branches: [main]}\n  pull_request:\n    <<: [*p]\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
     "    steps: [{run: x}]\n", 4),
])
def test_a_merge_key_makes_the_workflow_invalid(text, line):
    with pytest.raises(InputError) as exc:
        parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")
    assert (exc.value.file, exc.value.place) == (".github/workflows/ci.yml", f"line {line}")
    assert exc.value.reason == "invalid YAML: " + MERGE_KEY_REASON


def test_anchors_and_aliases_without_merge_keys_are_read():
    text = ("on:\n  push:\n    paths: &paths [src/**]\n  pull_request:\n    paths: *paths\njobs:\n  a: &job\n"
            "    runs-on: [self-hosted, linux]\n    steps:\n      - run: make <<EOF\n  b: *job\n  c:\n"
            "    runs-on: ubuntu-latest\n    env: {'<<': quoted}\n    steps: [{run: x}]\n")
    wf = parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")
    assert [(t.event, t.paths) for t in wf.events] == [("push", ("src/**",)), ("pull_request", ("src/**",))]
    assert {k: j.runs_on for k, j in wf.jobs.items()} == {"a": ["self-hosted", "linux"],
                                                          "b": ["self-hosted", "linux"], "c": "ubuntu-latest"}
    assert wf.jobs["c"].env == {"<<": "quoted"} and wf.jobs["a"].steps[0].run == "make <<EOF"
