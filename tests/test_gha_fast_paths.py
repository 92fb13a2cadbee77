"""Shortcuts of the workflow ingest give what the full work gives, on random inputs:

* ``commands(run, naming=...)`` (``ingest.github_actions.steps.run_scripts``) skips only commands whose tokens
  cannot start with one of the words: on random scripts (quotes, escapes, expressions, comments,
  continuations), the commands it keeps whose first positional word is named are those of the full
  tokenisation;
* ``secret_exprs`` (``ingest.github_actions.secrets``) walks only the strings naming ``secrets``: the same
  ``(path, expression)`` pairs as the walk of every string (the reference below).
"""

from __future__ import annotations

import random

from ingest._yaml import join_path
from ingest.github_actions.expressions import expressions, mentions_secrets
from ingest.github_actions.secrets import secret_exprs
from ingest.github_actions.steps.run_scripts import _FIRST_WORDS, commands, positional

PIECES = ["docker", "do'ck'er", 'd"ocker"', "d\\ocker", "push", "twine", "upload", "npm", "publish", "aws", "s3",
          "cp", "kubectl", "apply", "-f", "--context", "x.yml", "s3://b/k", "${{ secrets.T }}", "${{ 'docker' }}",
          "echo", "make", "#", "'a b'", '"c d"', "\\\n", "\n", " && ", " || ", ";", "  ", "--registry=r", "helm",
          "gsutil", "gcloud", "storage", "=", "'", '"']


def _named(cmds):
    return [t for t in cmds if (w := positional(t)) and w[0] in _FIRST_WORDS]


def test_the_filter_keeps_every_command_a_matcher_could_take():
    rng = random.Random(18)
    kept = 0
    for _ in range(3000):
        run = " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
        full = _named(commands(run))
        assert _named(commands(run, naming=_FIRST_WORDS)) == full, run
        kept += len(full)
    assert kept > 500


def _reference_secret_exprs(value, path):
    def strings(v, p):
        if isinstance(v, str):
            yield p, v
        elif isinstance(v, dict):
            for k, x in v.items():
                yield from strings(x, join_path(p, str(k)))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                yield from strings(x, join_path(p, i))
    for p, text in strings(value, path):
        for e in expressions(text, bare=p.endswith(".if") or p == "if"):
            if mentions_secrets(e):
                yield p, e


TEXTS = ["${{ secrets.A }}", "${{secrets.B}}", "x ${{ SECRETS.c }} y", "secrets.D != ''", "a.secrets.E",
         "${{ toJSON(secrets) }}", "mysecrets", "${{ vars.X }}", " secrets ", "${{ secrets }}-x", "echo", "",
         "${{ inputs.secrets-x }}", "${{ a }} secrets"]


def _value(rng, depth=0):
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([*TEXTS, 3, None, True])
    if roll < 0.7:
        return {rng.choice(["if", "run", "env", "with", "x", "steps", 1]): _value(rng, depth + 1)
                for _ in range(rng.randint(0, 4))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def test_secret_expressions_equal_the_walk_of_every_string():
    rng = random.Random(29)
    found = 0
    for _ in range(3000):
        value = _value(rng)
        got = list(secret_exprs(value, "jobs.a"))
        for path in ("jobs.a", "", "if"):
            assert list(secret_exprs(value, path)) == list(_reference_secret_exprs(value, path)), (value, path)
        found += len(got)
    assert found > 500


def test_repository_named_by_each_file_is_checked_at_each_file(tmp_path, monkeypatch):
    """The builder copies a repository's and its owner's nodes validated once for the next files naming them
    (``_Builder.repository``), unless validation left a value out: then every file's nodes are validated again
    and each file records its own refusals (``graphkit.model.bounds``), as when every node was validated."""
    from graphkit.build import build_graph
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS", "100")
    wf = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n"
    for name in ("a.yml", "b.yml", "c.yml"):
        (tmp_path / ".github" / "workflows").mkdir(parents=True, exist_ok=True)
        (tmp_path / ".github" / "workflows" / name).write_text(wf)
    long_name, short = "acme/" + "r" * 150, "acme/app"
    for repo, per_file in ((long_name, 3), (short, 0)):
        res = build_graph({"github-actions": [f"{repo}={tmp_path}"]})
        places = [(p.file.rsplit("/", 1)[-1], p.place) for p in res.graph.meta.problems if p.place == "(line 1)"]
        assert sorted(places) == sorted((n, "(line 1)") for n in ("a.yml", "b.yml", "c.yml") for _ in range(per_file))
        from graphkit.model import ids
        assert (res.graph.node(ids.repository(repo)).full_name == repo) is (repo == short)
