"""The literal-credential scan with needle prefilters (``graphkit.redact._spans``) finds exactly what the
reference scan (every format over the whole text, ``_spans_reference``) finds, in the same order: on every
file of the real corpus, on a synthetic org's workflows, on the canary workflow, and on random hostile text
(token fragments, credential words, case-folding characters, lines cut anywhere).  Token-shaped strings are
built at run time: no tracked file holds one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from graphkit import redact, synth

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def _same(text: str) -> list[tuple[str, int, int]]:
    fast, ref = redact._spans(text), redact._spans_reference(text)
    assert fast == ref, text[:200]
    if ref:  # the cheap tests of mark_credentials and mark_tokens never pass over a credential
        assert redact._may_hold_credential(text), text[:200]
    if redact._spans(text, assignments=False):
        assert redact._may_hold_credential(text, assignments=False), text[:200]
        assert redact.mark_tokens(text) != text, text[:200]  # and its cheap URL path marks it too
    return fast


def test_needles_name_only_formats_that_exist_and_every_needle_is_literal_text_of_its_format():
    formats = {rx.pattern: rx for _, rx in redact._token_res() + redact._EXTRA_RES}
    assert set(redact._NEEDLES) <= set(formats)
    assert len(formats) - len(redact._NEEDLES) == 1  # only the Discord format has no needle
    for pattern, needles in redact._NEEDLES.items():
        for n in needles:  # the needle's own text, as the regex would find it, holds the needle
            assert n.islower() or not formats[pattern].flags & 2, (pattern, n)


def test_the_formats_without_needles_are_the_bare_formats_of_the_cheap_test():
    """``mark_tokens``'s cheap test (run on every stored string, without importing detect-secrets) knows the
    formats without needles by their own patterns: exactly those."""
    formats = {rx.pattern for _, rx in redact._token_res() + redact._EXTRA_RES}
    assert formats - set(redact._NEEDLES) == {rx.pattern for rx in redact._BARE_FORMATS}


def test_no_needle_overlaps_a_needle_of_another_format():
    """A non-overlapping search for the needles finds one of every format present only when no needle's
    tail (or whole) is the head of, or holds, another format's needle; two formats may share one needle (both
    GitHub formats start ``ghp_``): the search finds it once, and both run."""
    ci = {rx.pattern for _, rx in redact._token_res() + redact._EXTRA_RES if rx.flags & 2}
    owned = [(n, p) for p, ns in redact._NEEDLES.items() if p not in ci for n in ns]
    assert len(owned) > 20
    for a, pa in owned:
        for b, pb in owned:
            if pa == pb or a == b:
                continue
            for k in range(len(a)):
                tail = a[k:]
                assert not (b.startswith(tail) or tail.startswith(b)), (a, b)


def test_real_corpus_every_file():
    files = [p for p in CORPUS.rglob("*") if p.is_file()] if CORPUS.is_dir() else []
    if not files:
        pytest.skip("no ../shared/corpus")
    found = 0
    for p in files:
        text = p.read_text(encoding="utf-8", errors="replace")
        found += len(_same(text))
    assert len(files) > 100 and found > 0


def test_synthetic_org_workflows(tmp_path):
    synth.write(synth.generate(30, seed=3), tmp_path)
    texts = [p.read_text() for p in tmp_path.rglob("*") if p.suffix in (".yml", ".yaml", ".json")]
    assert len(texts) > 20
    for text in texts:
        _same(text)


def _pieces() -> list[str]:
    b64 = "A1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvWxYz"
    key = "-----BEGIN " + "RSA PRIVATE" + " KEY-----"
    end = "-----END " + "RSA PRIVATE" + " KEY-----"
    return [
        "ghp_", "gho_", "github_pat_", "glpat-", "GR1348941", "glcbt-ab_", "glagent-", "xoxb-", "XOXP-", "1234-",
        "https://hooks.slack.com/services/T", "HOOKS.SLACK.COM/services/t", "/B", "eyJ", ".", "//reg/:_authToken=",
        "npm_", "pypi-AgEIcHlwaS5vcmc", "sk_live_", "rk_live_", "T3BlbkFJ", "sk-", "SG.", "AccountKey=", "sq0csp-",
        "AKIA", "ASIA", "A3TX", "aws", "AWS_", "key", "KEY", "pass", "password", "PASSWD", "secret", "Token", "tok",
        "en", "auth", "api-key", "api_key", "access_key", "private-key", "credentials", "--password ", "--token=",
        ": ", "=", " ", "\t", "\n", "\n", "'", '"', "`", "${{ secrets.X }}", "$VAR", "@", "://", "https://u:",
        "?private_token=", "&sig=", "#", "M", "N", "O", key, end, "\u212a", "\u017f", "\u0130", "\u0131", "\u00e9",
        "\r", "\x85", "\u2028", "example", "xxxx", "true",
    ] + [b64[i:i + n] for i in range(0, 30, 3) for n in (4, 8, 20, 40)]


def test_random_hostile_text():
    rng = random.Random(19)
    pieces = _pieces()
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        found += len(_same(text))
    assert found > 500  # the random texts do hold credentials of several kinds


def test_every_format_on_its_own_line_and_inside_a_word():
    rng = random.Random(5)
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    tokens = ["ghp_" + "".join(rng.choice(alnum) for _ in range(36)),
              "AKIA" + "".join(rng.choice(alnum.upper()[26:]) for _ in range(16)),
              "xoxb-" + "1234-" * 3 + "abcdef",
              "glpat-" + "".join(rng.choice(alnum) for _ in range(24)),
              "github_pat_" + "".join(rng.choice(alnum) for _ in range(30)),
              "eyJ" + "hbGciOi" + "." + "eyJzdWIi" + "." + "c2lnbmF0dXJl",
              "sk_live_" + "".join(rng.choice(alnum) for _ in range(24)),
              "SG." + "a" * 22 + "." + "b" * 43,
              "M" + "a" * 24 + "." + "b" * 6 + "." + "c" * 27]
    kinds = set()
    for tok in tokens:
        for text in (tok, f"x{tok}y", f"env:\n  T: {tok}\n", f"a\n{tok}", f"API_TOKEN={tok[:20]}Zq9\n", tok.lower()):
            kinds |= {k for k, _, _ in _same(text)}
    assert {"GitHub Token", "AWS Access Key", "Slack Token", "GitLab Token", "JSON Web Token",
            "Stripe Access Key", "SendGrid API Key", "Discord Bot Token", "High-entropy assignment"} <= kinds


def test_find_credentials_unchanged_on_the_canary_workflow(tmp_path):
    from test_canary import plant_checkout
    repo = plant_checkout(tmp_path)
    texts = [p.read_text() for p in repo.rglob("*.yml")]
    kinds = {k for t in texts for k, _, _ in _same(t)}
    assert {"GitHub Token", "URL credential", "High-entropy assignment"} <= kinds


def test_case_folding_characters_that_lower_does_not_map():
    """``(?i)`` matches ``ſecret`` and ``toKen`` (long s, Kelvin sign) and ``İ`` lower-cases to two characters:
    non-ASCII text is searched with the engine's own case rules, never through ``str.lower``."""
    value = "Zq9" + "".join("aB3xY7kP"[i % 8] + str(i) for i in range(8))
    texts = (f"\u017fecret={value}\n", f"api_\u212aey: {value}", f"\u0130\u0130\u0130\nPASSWORD={value}\n",
             f"x\u0130 AWS_SECRET_KEY='{value}'", f"\u017fECRET={value} \u0130 TOKEN={value}x")
    assert [len(_same(text)) for text in texts] == [1, 1, 1, 0, 2]
