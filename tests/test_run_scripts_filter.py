"""``commands(run, naming=...)`` (``ingest.github_actions.steps.run_scripts``) skips only commands whose tokens
cannot start with one of the words: on random scripts (quotes, escapes, expressions, comments, continuations),
the commands it keeps whose first positional word is named are exactly those of the full tokenisation."""

from __future__ import annotations

import random

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
