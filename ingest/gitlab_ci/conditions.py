"""``workflow:rules``, ``rules`` and ``only``/``except`` reduced to the pipelines a job runs in (pure).

A job's conditions are evaluated in every *scenario* that can tell them apart: the pipeline's ref type
(branch, tag or merge request, https://docs.gitlab.com/ci/pipelines/pipeline_types/), its source
(``$CI_PIPELINE_SOURCE``; sources the conditions never name are one scenario, expanded in the output), whether
the ref is protected (``$CI_COMMIT_REF_PROTECTED``), whether a merge request comes from a fork
(``$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH`` differs from ``$CI_PROJECT_PATH``, and
``$CI_MERGE_REQUEST_SOURCE_PROJECT_ID`` from ``$CI_PROJECT_ID``: a fork is another project, with its own path
and ID, and a fork's merge request pipeline that graphkit follows runs in the parent project,
https://docs.gitlab.com/ci/pipelines/merge_request_pipelines/#use-with-forked-projects; the target project,
``$CI_MERGE_REQUEST_PROJECT_PATH`` / ``_ID``, is the parent) and the ref name (each literal or
regular expression the conditions compare a ref with, the default branch when named, and "any other ref").
Predefined variables take the values GitLab documents for that pipeline
(https://docs.gitlab.com/ci/variables/predefined_variables/); any other variable is undecided.

Semantics:

- ``rules`` (https://docs.gitlab.com/ci/yaml/#rules): the first rule whose ``if`` (and ``changes``,
  ``exists``) matches decides; ``when: never`` excludes; no match excludes.  A rule that may or may not match
  makes the outcome ``possible`` (never dropped).  ``changes`` and ``exists`` are undecided.
- ``only``/``except`` (https://docs.gitlab.com/ci/yaml/deprecated_keywords/#only--except): ``refs`` keywords
  (``branches``, ``tags``, and a pipeline source without ``_event``, singular or plural: ``merge_requests``,
  ``schedules``, ``api``, ``triggers``, ``web``, ``pushes``, ``pipelines``...), names and ``/regex/`` (matched
  against the branch or tag name; never in merge request pipelines), each optionally ``@PROJECT_PATH`` (the job
  runs for that project only, e.g. ``main@gitlab-org/gitlab``: the part before the first ``@`` is matched as
  above; when the checkout's project path is known (``Conditions.project``), an entry naming another project never
  matches and one naming this project is its plain ref (``Gitlab::Ci::Build::Policy::Refs#matches_path?`` compares
  the pipeline's full path as is), else whether the pipeline's project is that one is undecided); ``variables``
  expressions;
  ``changes``/``kubernetes`` undecided.  A job is included when every ``only`` key matches and no ``except`` key
  does (``all_of_only?`` / ``none_of_except?`` in gitlab-org/gitlab ``lib/gitlab/ci/pipeline/seed/build.rb``,
  ``Gitlab::Ci::Build::Policy::Refs`` in ``lib/gitlab/ci/build/policy/refs.rb``).  No ``rules``, ``only`` or ``except``: ``only: [branches, tags]``.
- ``workflow:rules`` (https://docs.gitlab.com/ci/yaml/workflow/): decide whether the pipeline exists at all.
- conditions of the wrong shape (:mod:`.shapes`; GitLab would reject the file) are unknown: the job may run
  (``possible``) in every pipeline, never "in no pipeline".
- a child pipeline's job (``trigger: include:``, https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#parent-child-pipelines):
  its own ``workflow:rules`` and conditions read ``$CI_PIPELINE_SOURCE`` as ``parent_pipeline``
  (https://docs.gitlab.com/ci/jobs/job_rules/#ci_pipeline_source-predefined-variable; ``only: merge_requests``
  therefore never matches there, https://gitlab.com/gitlab-org/gitlab/-/issues/208294), and the pipeline exists
  only where one of its trigger jobs (``Conditions.parents``) runs: child pipelines "run under the same project,
  ref, and commit SHA as the parent pipeline", so both are evaluated in one scenario (ref type, ref name,
  protected or not, merge request from a fork or not), the trigger job with the parent pipeline's source.  A
  trigger job's ``when: manual`` / ``delayed`` makes the child's jobs wait for it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphkit.model import Confidence, Evidence, GitLabTrigger
from graphkit.model.gitlab import PIPELINE_SOURCES

from .expressions import SET, UNKNOWN, UNSET, Expr, ParseError, Sym, Value, evaluate, literals, parse_expression, \
    regex_match, variables_of

__all__ = ["Conditions", "reduce_triggers"]

_REF_VARS = frozenset({"CI_COMMIT_BRANCH", "CI_COMMIT_TAG", "CI_COMMIT_REF_NAME", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"})
_SOURCES = {
    "branch": tuple(s for s in PIPELINE_SOURCES if s not in ("merge_request_event", "external_pull_request_event")),
    "tag": ("push", "web", "schedule", "api", "trigger", "pipeline", "parent_pipeline"),
    "merge_request": ("merge_request_event",),
}


def _source_names(source: str) -> tuple[str, str]:
    """The ``only``/``except`` refs keywords naming a pipeline source: its name without ``_event`` and that name
    pluralised (``schedules``, ``pushes``, ``merge_requests``, ``triggers``, ``api``...), as GitLab's
    ``Gitlab::Ci::Build::Policy::Refs#matches_pattern?`` compares them (gitlab-org/gitlab,
    ``lib/gitlab/ci/build/policy/refs.rb``)."""
    base = source.removesuffix("_event")
    return base, base + ("es" if base.endswith(("sh", "ch", "s", "x")) else "s")


#: refs keyword -> the sources it names
_KEYWORD_SOURCES: dict[str, set[str]] = {}
for _src in PIPELINE_SOURCES:
    for _name in _source_names(_src):
        _KEYWORD_SOURCES.setdefault(_name, set()).add(_src)
_KEYWORDS = frozenset({"branches", "tags", *_KEYWORD_SOURCES})
_DEFAULT, _PROJECT, _FORK, _OTHER = Sym("default"), Sym("project"), Sym("fork"), Sym("other")
#: this project's ID and a fork's (another project: another ID; https://docs.gitlab.com/ci/variables/predefined_variables/
#: ``CI_PROJECT_ID`` "the ID of the current project", unique on the instance); never equal to a path
_PROJECT_ID, _FORK_ID = Sym("project", "id"), Sym("fork", "id")
_MR_SET = {"CI_MERGE_REQUEST_IID", "CI_MERGE_REQUEST_ID", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
           "CI_MERGE_REQUEST_REF_PATH",
           "CI_MERGE_REQUEST_TITLE", "CI_MERGE_REQUEST_PROJECT_URL", "CI_MERGE_REQUEST_SOURCE_PROJECT_URL"}


@dataclass(frozen=True)
class Scenario:
    """One pipeline graphkit tells apart (see the module docstring)."""

    kind: str
    source: str
    protected: bool
    fork: bool | None
    ref: Value
    #: the pipeline's project path (``$CI_PROJECT_PATH``), None when not known
    project: str | None = None

    def env(self, name: str) -> Value:
        """The value of predefined variable ``name`` in this pipeline (:data:`UNKNOWN` for the others)."""
        fixed = _env_of(self)
        if name in fixed:
            return fixed[name]
        if name.startswith("CI_MERGE_REQUEST_"):
            return (SET if name in _MR_SET else UNKNOWN) if self.kind == "merge_request" else UNSET
        return UNKNOWN

    def fixed(self) -> dict[str, Value]:
        """The predefined variables whose value this scenario decides."""
        mr = self.kind == "merge_request"
        fixed: dict[str, Value] = {
            "CI_PIPELINE_SOURCE": self.source, "CI_COMMIT_REF_NAME": self.ref,
            "CI_COMMIT_BRANCH": self.ref if self.kind == "branch" else UNSET,
            "CI_COMMIT_TAG": self.ref if self.kind == "tag" else UNSET,
            "CI_COMMIT_REF_PROTECTED": "true" if self.protected else "false",
            "CI_DEFAULT_BRANCH": _DEFAULT, "CI_PROJECT_PATH": _PROJECT,
            "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": self.ref if mr else UNSET,
            "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH": (_FORK if self.fork else _PROJECT) if mr else UNSET,
            "CI_MERGE_REQUEST_PROJECT_PATH": _PROJECT if mr else UNSET,
            "CI_PROJECT_ID": _PROJECT_ID,
            "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": (_FORK_ID if self.fork else _PROJECT_ID) if mr else UNSET,
            "CI_MERGE_REQUEST_PROJECT_ID": _PROJECT_ID if mr else UNSET,
            "CI_OPEN_MERGE_REQUESTS": SET if mr else UNKNOWN,
        }
        return fixed


@lru_cache(maxsize=8192)
def _env_of(sc: Scenario) -> dict[str, Value]:
    return sc.fixed()


@dataclass(frozen=True)
class Conditions:
    """A job's conditions as written (after merging): ``rules`` (None: absent), ``only``, ``except_``, the
    job's ``when``, the ``workflow:rules``, and ``evidence`` of what decides them."""

    rules: Any
    only: Any
    except_: Any
    when: str
    workflow: Any
    evidence: Evidence
    conditional: bool = False
    #: a child pipeline's job: its pipeline's source is ``parent_pipeline``
    #: (https://docs.gitlab.com/ci/jobs/job_rules/#ci_pipeline_source-predefined-variable)
    child: bool = False
    #: the job's ``rules`` / ``only`` / ``except`` / ``when`` have the wrong shape (:mod:`.shapes`): the job may
    #: run in every pipeline the workflow allows (``possible``)
    unknown: bool = False
    #: ``workflow`` has the wrong shape: every pipeline may or may not exist (``possible``)
    workflow_unknown: bool = False
    #: the project path of the checkout (every pipeline graphkit follows runs in it), None when not known
    project: str | None = None
    #: a child pipeline's job: the conditions of the trigger jobs that start its pipeline (it exists where any of
    #: them runs; none known: wherever its own conditions allow, as ``parent_pipeline``)
    parents: tuple[Conditions, ...] = ()

    def key(self) -> str:
        """Identity of what decides the outcome (jobs sharing templates share it)."""
        return json.dumps([self.rules, self.only, self.except_, self.when, self.workflow, self.conditional, self.child,
                           self.unknown, self.workflow_unknown,
                           self.project if "@" in json.dumps([self.only, self.except_], default=str) else None,
                           [p.key() for p in self.parents]],
                          sort_keys=True, default=str)

    def chain(self) -> list[Conditions]:
        """These conditions and their trigger jobs', transitively (each once)."""
        out: list[Conditions] = []
        todo = [self]
        while todo:
            c = todo.pop(0)
            if all(c is not o for o in out):
                out.append(c)
                todo += list(c.parents)
        return out


def _expr(text: Any) -> Expr | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_expression(text)
    except ParseError:
        return None


def _flat(items: Any) -> list[Any]:
    """Rules lists may nest (``!reference`` of a rules list): flattened."""
    if not isinstance(items, list):
        return []
    out: list[Any] = []
    for item in items:
        out.extend(_flat(item) if isinstance(item, list) else [item])
    return out


@dataclass(frozen=True)
class _Rule:
    """One rule, read once: its ``if`` (None: absent or unreadable), whether it is undecided whatever the
    scenario (an unreadable ``if``, ``changes``, ``exists``), and its ``when``."""

    expr: Expr | None
    undecided: bool
    when: str | None


def _compile_rules(items: Any) -> tuple[_Rule, ...]:
    out = []
    for rule in _flat(items):
        if not isinstance(rule, dict):
            continue
        e = _expr(rule["if"]) if "if" in rule else None
        undecided = ("if" in rule and e is None) or "changes" in rule or "exists" in rule
        when = rule.get("when")
        out.append(_Rule(e, undecided, str(when) if when is not None else None))
    return tuple(out)


def _rule_match(rule: _Rule, sc: Scenario) -> bool | None:
    result = evaluate(rule.expr, sc.env) if rule.expr is not None else True
    return None if result is not False and rule.undecided else result


def _rules_outcome(rules: tuple[_Rule, ...], sc: Scenario, default_when: str) -> tuple[str, bool] | None:
    """``(when, certain)`` of the first matching rule, or None when no rule can make it run."""
    possible: str | None = None
    undecided = False  # a rule before may or may not have decided (either way)
    for rule in rules:
        hit = _rule_match(rule, sc)
        if hit is False:
            continue
        when = rule.when or default_when
        if hit is True:
            if when == "never":
                break
            return when, not undecided
        undecided = True
        if when != "never" and possible is None:
            possible = when
    return (possible, False) if possible else None


def _name_match(ref: Value, name: str) -> bool | None:
    """A ref equals the literal ``name`` (named by the conditions, so "other" and regex refs are not it)."""
    if isinstance(ref, str):
        return ref == name
    return None if ref == _DEFAULT else False


def _refs_match(entries: Any, sc: Scenario) -> bool | None:
    if not isinstance(entries, list):
        entries = [entries]
    results: list[bool | None] = []
    for raw in entries:
        entry = str(raw)
        if entry in ("branches", "tags"):
            results.append(sc.kind == {"branches": "branch", "tags": "tag"}[entry])
        elif entry in _KEYWORD_SOURCES:
            results.append(sc.source in _KEYWORD_SOURCES[entry])
        elif "@" in entry:  # PATTERN@PROJECT_PATH: PATTERN in that project only (split at the first "@")
            pattern, path = entry.split("@", 1)
            hit = _refs_match([pattern], sc)
            if sc.project is not None:  # another project's: never here (GitLab compares the full path as is)
                results.append(hit if path == sc.project else False)
            else:
                results.append(False if hit is False else None)  # whether this is that project: undecided
        elif sc.kind == "merge_request":
            results.append(False)
        elif entry.startswith("/") and entry.rstrip("imsx").endswith("/") and len(entry) > 1:
            results.append(regex_match(sc.ref, entry))
        else:
            results.append(_name_match(sc.ref, entry))
    return True if True in results else None if None in results else False


def _policy(spec: Any, sc: Scenario, *, any_key: bool) -> bool | None:
    """``only`` (every key matches) or ``except`` (any key matches) in three values."""
    if isinstance(spec, (list, str)):
        return _refs_match(spec, sc)
    if not isinstance(spec, dict):
        return None
    results: list[bool | None] = []
    for key, value in spec.items():
        if key == "refs":
            results.append(_refs_match(value, sc))
        elif key == "variables":
            exprs = [_expr(v) for v in (value if isinstance(value, list) else [value])]
            vals = [evaluate(e, sc.env) if e is not None else None for e in exprs]
            results.append(True if True in vals else None if None in vals else False)
        else:  # changes, kubernetes
            results.append(None)
    if any_key:
        return True if True in results else None if None in results else False
    return False if False in results else None if None in results else True


def _job_outcome(c: Conditions, rules: tuple[_Rule, ...] | None, sc: Scenario) -> tuple[str, bool] | None:
    if c.when == "never":
        return None
    if c.unknown:
        return c.when, False
    if rules is not None:
        return _rules_outcome(rules, sc, c.when)
    only = c.only if c.only is not None else ["branches", "tags"]
    inc = _policy(only, sc, any_key=False)
    exc = _policy(c.except_, sc, any_key=True) if c.except_ is not None else False
    ok = False if inc is False or exc is True else None if None in (inc, exc) else True
    return None if ok is False else (c.when, ok is True)


_WORKFLOW_CACHE: dict[tuple[int, Scenario], bool | None] = {}


def _workflow_outcome(rules: tuple[_Rule, ...], sc: Scenario) -> bool | None:
    if not rules:
        return True
    key = (id(rules), sc)
    if key not in _WORKFLOW_CACHE:
        got = _rules_outcome(rules, sc, "always")
        _WORKFLOW_CACHE[key] = False if got is None else got[1] or None
    return _WORKFLOW_CACHE[key]


def _written(c: Conditions) -> tuple[list[Expr], list[str]]:
    """The expressions (``rules:if``, ``only/except:variables``) and ``only``/``except`` refs entries of ``c``."""
    exprs: list[Expr] = []
    names: list[str] = []
    for one in c.chain():
        for rule in _flat(one.rules) + (_flat(one.workflow.get("rules")) if isinstance(one.workflow, dict) else []):
            e = _expr(rule.get("if")) if isinstance(rule, dict) else None
            exprs += [e] if e is not None else []
        for spec in (one.only, one.except_):
            refs = spec.get("refs") if isinstance(spec, dict) else spec
            names += [str(n) for n in (refs if isinstance(refs, list) else [refs] if isinstance(refs, str) else [])]
            vs = spec.get("variables") if isinstance(spec, dict) else None
            exprs += [e for e in map(_expr, vs if isinstance(vs, list) else [vs]) if e is not None]
    return exprs, names


def _mentions(c: Conditions) -> tuple[list[Value], set[str], bool]:
    """Refs (literals and ``/regex/`` as :class:`Sym`), sources and whether the default branch is named."""
    exprs, names = _written(c)
    refs: list[Value] = []
    sources: set[str] = set()
    default = False
    for e in exprs:
        refs += [Sym("regex", text) if kind == "re" else text for kind, text in literals(e, _REF_VARS)]
        sources |= {t for k, t in literals(e, frozenset({"CI_PIPELINE_SOURCE"})) if k == "lit"}
        default = default or "CI_DEFAULT_BRANCH" in variables_of(e)
    for n in (name.split("@", 1)[0] for name in names):
        if n in _KEYWORD_SOURCES:
            sources |= _KEYWORD_SOURCES[n]
        elif n not in _KEYWORDS:
            refs.append(Sym("regex", n) if n.startswith("/") else n)
    return list(dict.fromkeys(refs))[:16], sources, default


def _scenarios(c: Conditions) -> Iterable[tuple[Scenario, tuple[str, ...]]]:
    """Every scenario with the sources it stands for."""
    refs, named, default = _mentions(c)
    refs = [*refs, *([_DEFAULT] if default else []), _OTHER]
    for kind, all_sources in _SOURCES.items():
        if c.child and not c.parents:
            all_sources = ("parent_pipeline",)
        elif c.parents:  # the source of the pipeline at the top (the trigger job's, or its own trigger job's)
            all_sources = tuple(dict.fromkeys((*all_sources, "parent_pipeline")))
        mentioned = [s for s in all_sources if s in named]
        rest = tuple(s for s in all_sources if s not in named)
        groups = [(s, (s,)) for s in mentioned] + ([(rest[0], rest)] if rest else [])
        if c.parents:  # a child pipeline's $CI_PIPELINE_SOURCE is parent_pipeline, whatever started the parent
            groups = [(s, ("parent_pipeline",)) for s, _ in groups]
        variants = [(False, False), (False, True), (True, False)] if kind == "merge_request" else \
            [(None, False), (None, True)]
        for fork, protected in variants:
            for ref in refs:
                if kind == "tag" and ref == _DEFAULT:
                    continue
                for src, stands in groups:
                    yield Scenario(kind, src, protected, fork, ref, c.project), stands


def _ref_text(ref: Value) -> str:
    if isinstance(ref, Sym):
        return "$CI_DEFAULT_BRANCH" if ref.kind == "default" else ref.text
    return str(ref)


def _group(runs: dict[Scenario, tuple[tuple[str, ...], str, bool]], c: Conditions,
           considered: set[tuple[str, Value]]) -> list[GitLabTrigger]:
    """Scenarios that run -> triggers: sources with one outcome together, then refs, then protected or not."""
    by_ref: dict[tuple, set[str]] = {}
    for sc, (sources, when, certain) in runs.items():
        by_ref.setdefault((sc.kind, sc.fork, sc.protected, sc.ref, when, certain), set()).update(sources)
    by_sources: dict[tuple, list[Value]] = {}
    for (kind, fork, protected, ref, when, certain), sources in by_ref.items():
        by_sources.setdefault((kind, fork, protected, tuple(sorted(sources)), when, certain), []).append(ref)
    every = considered  # (ref type, ref) of every scenario, run or not: what "any other ref" excludes
    out: dict[tuple, GitLabTrigger] = {}
    for (kind, fork, protected, sources, when, certain), refs in by_sources.items():
        if _OTHER in refs:
            excluded = tuple(sorted(_ref_text(r) for k, r in every if k == kind and r not in refs))
            names: tuple[str, ...] | None = None
        else:
            names, excluded = tuple(sorted(_ref_text(r) for r in refs)), ()
        key = (kind, fork, sources, names, excluded, when, certain)
        prev = out.get(key)
        out[key] = GitLabTrigger(ref_type=kind, sources=sources, refs=names, refs_excluded=excluded,
                                 protected=None if prev is not None and prev.protected != protected else protected,
                                 from_fork=fork, when=when, evidence=c.evidence,
                                 confidence=Confidence.CERTAIN if certain and not c.conditional
                                 else Confidence.POSSIBLE)
    return sorted(out.values(), key=lambda t: (t.ref_type, t.from_fork is True, t.protected is False, t.refs or (),
                                               t.sources, t.when))


_WAITS = ("manual", "delayed")


def _outcome(c: Conditions, sc: Scenario, compiled: dict[int, tuple[tuple[_Rule, ...], tuple[_Rule, ...] | None]],
             seen: tuple[int, ...]) -> tuple[str, bool] | None:
    """``(when, certain)`` of the job of ``c`` in the pipeline of ``sc`` (a child's own conditions read
    ``$CI_PIPELINE_SOURCE`` as ``parent_pipeline``; its pipeline exists where one of its trigger jobs runs, in the
    same scenario), None when it does not run there."""
    own_sc = dataclasses.replace(sc, source="parent_pipeline") if c.child else sc
    wf_rules, rules = compiled[id(c)]
    wf = None if c.workflow_unknown else _workflow_outcome(wf_rules, own_sc)
    job = _job_outcome(c, rules, own_sc) if wf is not False else None
    if job is None:
        return None
    own = (job[0], job[1] and wf is True and not c.conditional)
    if not c.parents:
        return own
    best: tuple[str, bool] | None = None
    for p in c.parents:
        got = None if id(p) in seen else _outcome(p, sc, compiled, (*seen, id(c)))
        if got is not None and (best is None or (got[1] and not best[1])):
            best = got
    if best is None:
        return None
    when = best[0] if best[0] in _WAITS and own[0] not in _WAITS else own[0]
    return when, own[1] and best[1]


_CACHE: dict[str, tuple[GitLabTrigger, ...]] = {}
_WORKFLOWS: dict[str, tuple[_Rule, ...]] = {}


def _workflow_rules(workflow: Any) -> tuple[_Rule, ...]:
    """The compiled ``workflow:rules`` (one object per distinct workflow, the key of the outcome cache)."""
    key = json.dumps(workflow, sort_keys=True, default=str)
    if key not in _WORKFLOWS:
        if len(_WORKFLOWS) > 64:
            _WORKFLOWS.clear()
            _WORKFLOW_CACHE.clear()
        _WORKFLOWS[key] = _compile_rules(workflow.get("rules")) if isinstance(workflow, dict) else ()
    return _WORKFLOWS[key]


def reduce_triggers(c: Conditions) -> tuple[GitLabTrigger, ...]:
    """The pipelines a job with conditions ``c`` runs in (see the module docstring).

    Returns
    -------
    tuple of GitLabTrigger
        empty when it never runs; scenarios that differ only in the source are one trigger with every source,
        protected and unprotected refs with the same outcome one trigger with ``protected=None``.
    """
    key = c.key()
    if key in _CACHE:
        return tuple(t.model_copy(update={"evidence": c.evidence}) for t in _CACHE[key])
    runs: dict[Scenario, tuple[tuple[str, ...], str, bool]] = {}
    compiled = {id(one): (_workflow_rules(one.workflow), _compile_rules(one.rules) if one.rules is not None else None)
                for one in c.chain()}
    considered: set[tuple[str, Value]] = set()
    for sc, stands in _scenarios(c):
        considered.add((sc.kind, sc.ref))
        got = _outcome(c, sc, compiled, ())
        if got is not None:
            runs[sc] = (stands, got[0], got[1])
    result = tuple(_group(runs, c, considered))
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[key] = result
    return result
