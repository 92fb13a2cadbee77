"""Fuzz harness over every parser (issue 18): mutants of real files must parse or fail with the project's error.

Each *target* is one parser with its seed files (real corpus files from ``../shared/corpus`` and the repository's
fixtures) and the exceptions its contract allows (:class:`~graphkit.errors.InputError` for the ingest parsers,
:class:`~graphkit.errors.GraphFileError` for saved graphs, ``ValueError`` for the host credential-file parsers,
which :func:`ingest.host.collect` turns into problems).  A mutant goes through ``parse`` and then the target's
``to_graph`` (a parsed model must also become a graph); any other exception is a crash.

Mutations (:func:`mutate`): byte-level edits (delete, duplicate or move a span, insert YAML/JSON syntax, control
characters, anchors and aliases, failing tags) and structure-aware edits (load the seed, replace a random node with
a value of another type -- a number, a list, a mapping, null, a deep nest, a long string -- and dump it again).
:func:`values` is the hypothesis strategy of replacement values used by the short run in ``tests/test_fuzz.py``;
the long run draws them from a seeded ``random.Random`` so that a crash is reproducible from ``(target, seed)``.

Batches (:func:`batch`): mutants mixed with valid seed files in one folder, built by the real ingestor; every valid
file must be read (none lost) and every mutant either read or named in a problem.

Long run (issue 18 "done when": >= 10,000 cases per parser, zero crashes, zero lost valid files)::

    python tests/fuzz_harness.py --cases 10000            # every target, batches every 200 cases
    python tests/fuzz_harness.py --cases 2000 --target iam --seed 7

It prints one line per target (cases, parsed, refused, crashes, batches, lost valid files) and the reproducer
``(target, seed)`` of each crash, and exits non-zero on any crash or lost file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"

if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from graphkit.errors import GraphFileError, InputError  # noqa: E402
from graphkit.ingestor import InputFile  # noqa: E402

# --------------------------------------------------------------------------- values and mutations

#: Fragments an attacker writes into YAML/JSON text.
FRAGMENTS = ["\x00", "\x07", "\x1b[2J", "\u202e", "\ufeff", "\t", "\r", "\n", "\n  ", "\n- ", ": ", "- ", "{", "}",
             "[", "]", "&a ", "*a", "&b [*a, *a, *a]", "&r [*r]", "&m {k: *m}", "!!int 12x", "!!float x",
             "!!binary a", "!!timestamp 9",
             "!!python/object:os.system ", "!Ref ", "!Sub ", "<<: *a\n", "? ", "|", ">", "'", '"', "\\", "%",
             "${{ secrets.X }}", "${{ matrix.os }}", "${{ fromJSON('[1,2]') }}", "@", "`", "#", ",", "null", "~",
             "1e999", "-0", "0x1F", "true", "on", "yes", "[" * 150, "]" * 150, "{" * 60, "x" * 5000]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON/YAML value of any type (the long run's replacement values)."""
    kind = rng.randrange(12 if depth < 3 else 8)
    simple: list[Callable[[], Any]] = [
        lambda: None, lambda: rng.choice([True, False]), lambda: rng.randint(-2**70, 2**70),
        lambda: rng.choice([3.14, -0.0, 1e308, float("inf")]), lambda: rng.choice(FRAGMENTS),
        lambda: "".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(1, 6))), lambda: "",
        lambda: "y" * rng.choice([1, 300, 70_000])]
    if kind < len(simple):
        return simple[kind]()
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == 10:
        return {str(random_value(rng, depth + 1))[:40]: random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}
    nest: Any = "deep"
    for _ in range(rng.choice([50, 99, 150, 400])):
        nest = [nest] if rng.random() < 0.5 else {"k": nest}
    return nest


def values():
    """The hypothesis strategy of replacement values (any JSON-like value, nested)."""
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
               | st.text(max_size=30) | st.sampled_from(FRAGMENTS))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=20)


def _paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += _paths(v, prefix + (i,))
    return out


def _replace(tree: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = tree
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return tree


def structural(text: str, rng: random.Random, value: Any, as_json: bool) -> str | None:
    """``text`` with one random node replaced by ``value`` (None when the seed does not load)."""
    try:
        tree = json.loads(text) if as_json else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError):
        return None
    tree = _replace(tree, rng.choice(_paths(tree)), value)
    if isinstance(tree, dict) and True in tree:  # YAML 1.1 reads the key `on` as true: write it back as `on`
        tree = {("on" if k is True else k): v for k, v in tree.items()}
    try:
        if as_json:
            return json.dumps(tree)
        return yaml.safe_dump(tree, sort_keys=False, allow_unicode=True, width=1 << 20)
    except (ValueError, RecursionError, yaml.YAMLError):
        return None


def textual(text: str, rng: random.Random) -> str:
    """One to four byte-level edits of ``text``."""
    for _ in range(rng.randrange(1, 5)):
        n = len(text)
        i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
        op = rng.randrange(5)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 2:
            text = text[:i] + rng.choice(FRAGMENTS) + text[i:]
        elif op == 3:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        else:
            k = rng.randrange(n + 1)
            text = text[:k] + text[i:j] + text[k:]
    return text


def mutate(text: str, rng: random.Random, *, as_json: bool = False, value: Any = None) -> str:
    """A mutant of ``text``: structural half of the time (when it loads), else textual."""
    if rng.random() < 0.5:
        out = structural(text, rng, random_value(rng) if value is None else value, as_json)
        if out is not None:
            return out
    return textual(text, rng)


# --------------------------------------------------------------------------- targets


@dataclass
class Target:
    """One parser: seeds, how to run a text through parse and to_graph, what errors its contract allows, and the
    ingestor (with the file name a mutant is written under) for batches."""

    name: str
    seeds: list[str]
    run: Callable[[str], Any]
    allowed: tuple[type[BaseException], ...] = (InputError,)
    as_json: bool = False
    ingestor: str | None = None
    filename: str = "f.yaml"


def _files(pattern: str, root: Path = CORPUS) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(root.glob(pattern)) if p.is_file()
            and p.stat().st_size < 400_000]


def _gha(kind: str) -> Callable[[str], Any]:
    from ingest.github_actions import INGESTOR, to_graph

    name = ".github/workflows/f.yml" if kind == "workflow" else "a/action.yml"

    def run(text: str) -> Any:
        parsed = INGESTOR.parse(text, InputFile(path=Path("/x") / name, name=name, context=("acme/app", kind)))
        return to_graph([parsed], repositories=["acme/app"])
    return run


def _iam(text: str) -> Any:
    from ingest.aws_iam import parse, to_graph
    return to_graph([parse(text, "f.json")])


def _inventory(text: str) -> Any:
    from ingest.runner_inventory import parse, to_graph
    return to_graph([parse(text, "f.yaml")])


#: A small GitLab project's configuration (issue 14): templates, extends, !reference, rules, secrets, id_tokens.
GITLAB_SEED = """\
stages: [build, deploy]
variables: {GIT_DEPTH: "1", DEPLOY_TOKEN: "$VAULT_TOKEN"}
workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
    - if: $CI_COMMIT_TAG =~ /^v[0-9]+/
default: {image: "alpine:3", tags: [docker]}
.base: &base
  tags: [linux]
  variables: {A: "1"}
.deploy:
  extends: .base
  id_tokens:
    VAULT_ID_TOKEN: {aud: https://vault.example.com}
  secrets:
    DB_PASSWORD: {vault: production/db/password@ops, token: $VAULT_ID_TOKEN}
build:
  <<: *base
  stage: build
  script: [make, !reference [.base, tags]]
  rules:
    - if: $CI_MERGE_REQUEST_SOURCE_PROJECT_PATH != $CI_PROJECT_PATH
      when: never
    - when: on_success
deploy:
  extends: .deploy
  stage: deploy
  environment: {name: production, deployment_tier: production}
  only: [main, tags]
  except: {variables: ['$SKIP == "1"']}
  script: [./deploy]
"""


def _gitlab(text: str) -> Any:
    from ingest.gitlab_ci import INGESTOR, Project, to_graph
    parsed = INGESTOR.parse(text, InputFile(path=Path("/x/.gitlab-ci.yml"), name=".gitlab-ci.yml",
                                            context=Project("acme/app")))
    result = to_graph([parsed])
    internal = [p for p in result.problems if "internal error" in p.reason]
    if internal:  # to_graph isolates a defect on one job as a problem: for the fuzzer, it is a crash
        raise RuntimeError(internal[0].reason)
    return result


def _graph(text: str) -> Any:
    from graphkit.graph import Graph
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8", delete=False) as fh:
        fh.write(text)
    try:
        return Graph.load(fh.name)
    finally:
        Path(fh.name).unlink()


HOST_SEEDS = {
    "kube": "apiVersion: v1\nclusters:\n- name: c\n  cluster: {server: 'https://k8s.example:6443'}\nusers:\n"
            "- name: u\n  user: {token: placeholder}\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n",
    "docker": '{"auths": {"ghcr.io": {"auth": "placeholder"}, "quay.io": {}}, "credHelpers": {"gcr.io": "gcloud"}}',
    "gh": "github.com:\n  oauth_token: placeholder\n  user: octo\n  users: {octo: {oauth_token: x}}\n",
    "runner": '{"agentId": 7, "agentName": "b1", "poolId": 1, "poolName": "Default", '
              '"gitHubUrl": "https://github.com/acme", "workFolder": "_work", "ephemeral": true}',
    "gitlab": 'concurrent = 4\n[[runners]]\n  name = "r1"\n  url = "https://gitlab.com/"\n  token = "placeholder"\n'
              '  executor = "shell"\n',
}


def _host(text: str) -> Any:
    from ingest.host import credentials as c
    from ingest.host import runners as r
    out = []
    for parse in (c.parse_kube_config, c.parse_docker_config, c.parse_gh_hosts, c.parse_aws_credentials,
                  c.parse_npmrc, c.parse_pypirc, c.parse_git_credentials):
        try:
            out.append(parse(text))
        except ValueError:  # the contract: ValueError naming no content, recorded as a problem by the collector
            pass
    for parse_file in (r.parse_runner_file, r.parse_gitlab_config):
        try:
            out.append(parse_file(text, "f"))
        except InputError:
            pass
    return out


def _graph_seed() -> str:
    from graphkit.build import build_graph
    case = REPO / "tests" / "fixtures" / "cases" / "reusable-oidc"
    inputs = {"github-actions": [str(p) for p in sorted(case.glob("repos/*"))],
              "runners": [str(p) for p in sorted(case.glob("inventory.yaml"))]}
    g = build_graph({k: v for k, v in inputs.items() if v}).graph
    return json.dumps(g.to_dict())


def targets() -> dict[str, Target]:
    """Every parser with its seeds (corpus files when ``../shared/corpus`` is there, and repository fixtures)."""
    fixtures = REPO / "tests" / "fixtures"
    return {
        "workflow": Target("workflow", _files("github-actions/*/.github/workflows/*.y*ml")
                           + _files("**/.github/workflows/*.y*ml", fixtures), _gha("workflow"),
                           ingestor="github-actions", filename=".github/workflows/f{}.yml"),
        "action": Target("action", _files("github-actions/**/action.y*ml") + _files("**/action.y*ml", fixtures)
                         or ["name: a\nruns:\n  using: composite\n  steps: [{run: make, shell: bash}]\n"],
                         _gha("action"), ingestor="github-actions", filename="a{}/action.yml"),
        "iam": Target("iam", _files("aws-iam/**/*.json") + _files("aws-iam/**/*.y*ml"), _iam, as_json=True,
                      ingestor="aws-iam", filename="f{}.json"),
        "inventory": Target("inventory", _files("**/inventory.yaml", fixtures), _inventory, ingestor="runners",
                            filename="f{}.yaml"),
        "host": Target("host", list(HOST_SEEDS.values()), _host),
        "gitlab-ci": Target("gitlab-ci", _files("gitlab-ci/**/*.y*ml") + [GITLAB_SEED], _gitlab),
        "graph": Target("graph", [_graph_seed()], _graph, allowed=(GraphFileError,), as_json=True),
    }


# --------------------------------------------------------------------------- running


@dataclass
class Tally:
    """What one target's run found."""

    cases: int = 0
    parsed: int = 0
    refused: int = 0
    crashes: list[tuple[int, str]] = field(default_factory=list)
    batches: int = 0
    lost: list[str] = field(default_factory=list)


def check(target: Target, text: str) -> str | None:
    """None when ``text`` parses (and becomes a graph) or fails as the contract allows; else the crash (type and
    the last frame)."""
    try:
        target.run(text)
    except target.allowed:
        return "refused"
    except Exception as exc:  # noqa: BLE001 - this is what a fuzzer is for
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return f"CRASH {type(exc).__name__} at {Path(frame.filename).name}:{frame.lineno}"
    return None


def _build(target: Target, texts: list[str], n_valid: int, tmp: str) -> tuple[set[str], dict[int, list[str]]]:
    """Node ids and problems (by file index) of ``texts`` written as one checkout/folder under ``tmp`` (the same
    path for both builds of a batch: ids hold paths) and built for real."""
    import shutil

    from graphkit.build import build_graph

    root = Path(tmp) / "acme__app"
    shutil.rmtree(root, ignore_errors=True)
    (root / ".git").mkdir(parents=True)
    paths = {}
    for i, text in enumerate(texts):
        p = root / target.filename.format(f"a{i:04d}" if i < n_valid else f"z{i:04d}")  # valid files first
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8", errors="surrogatepass")
        paths[str(p)] = i
    result = build_graph({target.ingestor: [str(root)]})
    problems: dict[int, list[str]] = {}
    for prob in result.problems:
        i = paths.get(prob.file, paths.get(str(root / prob.file)))
        if i is not None:
            problems.setdefault(i, []).append(f"{prob.place}: {prob.reason}")
    return {n.id for n in result.graph.nodes()}, problems


def batch(target: Target, mutants: list[str], valid: list[str]) -> list[str]:
    """Build ``valid`` seeds alone, then with ``mutants`` mixed in: what the valid files gave and was lost (node ids
    missing, or a valid file with new problems)."""
    with tempfile.TemporaryDirectory() as tmp:
        alone, alone_problems = _build(target, valid, len(valid), tmp)
        mixed, mixed_problems = _build(target, valid + mutants, len(valid), tmp)
    lost = sorted(alone - mixed)
    lost += [f"file {i}: {mixed_problems.get(i)}" for i in range(len(valid))
             if mixed_problems.get(i, []) != alone_problems.get(i, [])]
    return lost


def run(name: str, cases: int, seed: int = 0, batch_every: int = 200) -> Tally:
    """``cases`` mutants of ``name``'s seeds (reproducible from ``seed``), with a batch every ``batch_every``."""
    target = targets()[name]
    tally = Tally()
    pending: list[str] = []
    valid = [s for s in target.seeds if check(target, s) is None]
    for case in range(cases):
        rng = random.Random(f"{name}:{seed}:{case}")
        text = mutate(rng.choice(target.seeds), rng, as_json=target.as_json)
        outcome = check(target, text)
        tally.cases += 1
        if outcome is None:
            tally.parsed += 1
        elif outcome == "refused":
            tally.refused += 1
        else:
            tally.crashes.append((case, outcome))
        pending.append(text)
        if target.ingestor and valid and len(pending) >= batch_every:
            tally.lost += batch(target, pending[-20:], valid[:10])
            tally.batches += 1
            pending = []
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000, help="mutants per target (default 10,000)")
    ap.add_argument("--target", action="append", choices=sorted(targets()), help="only these targets")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    failed = False
    for name in args.target or list(targets()):
        t = run(name, args.cases, args.seed)
        failed |= bool(t.crashes or t.lost)
        for what in t.lost[:5]:
            print(f"  lost: {what[:300]}")
        print(f"{name}: {t.cases} cases, {t.parsed} parsed, {t.refused} refused, {len(t.crashes)} crashes, "
              f"{t.batches} batches, {len(t.lost)} valid files lost", flush=True)
        for case, what in t.crashes[:20]:
            print(f"  reproduce: run({name!r}, seed={args.seed}) case {case}: {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
