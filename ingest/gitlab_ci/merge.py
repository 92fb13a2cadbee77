"""One pipeline's configuration, merged as GitLab merges it (pure).

Order (GitLab docs "Use CI/CD configuration from other files", https://docs.gitlab.com/ci/yaml/includes/,
and "Optimize GitLab CI/CD configuration files", https://docs.gitlab.com/ci/yaml/yaml_optimization/):

1. includes: each included file is merged in order, then the including file over them (deep merge of
   mappings, anything else replaced: https://docs.gitlab.com/ci/yaml/includes/#override-included-configuration-values);
   ``local`` includes come from the checkout, the others are recorded as unresolved;
2. ``!reference [.job, key, ...]`` tags are replaced by what they name in the merged configuration (nested up
   to 10 levels; a reference inside a sequence that names a sequence is spliced into it);
3. ``extends`` (a name or a list; multi-level up to 11 levels; parents merged in order, the job last; mappings
   merged deeply, sequences and scalars replaced, ``null`` unsets; https://docs.gitlab.com/ci/yaml/#extends);
4. ``default:`` keywords a job does not set (https://docs.gitlab.com/ci/yaml/#default), unless
   ``inherit:default`` is false or a list that leaves them out; global ``variables:`` likewise with
   ``inherit:variables`` (https://docs.gitlab.com/ci/yaml/#inherit).

Hidden jobs (``.name``) are templates, not jobs.  Every fact keeps the file and YAML path it came from
(:class:`Fragment`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from graphkit import limits
from graphkit.errors import InputError
from graphkit.model import Evidence

from .collect import local_targets
from .inputs import with_inputs
from .models import CIFile, Include, Reference
from .parse import RESERVED, is_hidden

__all__ = ["MAX_EXTENDS_DEPTH", "MAX_REFERENCE_DEPTH", "DEFAULT_KEYWORDS", "Fragment", "ResolvedJob", "Pipeline",
           "deep_merge", "assemble"]

MAX_EXTENDS_DEPTH = 11
MAX_REFERENCE_DEPTH = 10
MAX_INCLUDE_DEPTH = 100
#: Keywords ``default:`` sets for every job (https://docs.gitlab.com/ci/yaml/#default).
DEFAULT_KEYWORDS = frozenset({"after_script", "artifacts", "before_script", "cache", "hooks", "id_tokens", "image",
                              "interruptible", "retry", "services", "tags", "timeout"})
#: The :data:`DEFAULT_KEYWORDS` a trigger job (``trigger:``, a bridge) takes: it runs nothing on a runner and "can
#: only use a limited set of GitLab CI/CD configuration keywords" (https://docs.gitlab.com/ci/yaml/#trigger:
#: ``allow_failure``, ``extends``, ``needs``, ``only``/``except``, ``parallel``, ``rules``, ``stage``,
#: ``trigger``, ``variables``, ``when``, ``resource_group``, ``environment``, ``inherit``, ``interruptible``), so
#: ``default:`` ``id_tokens``, ``tags``, ``image``, scripts... never reach it.
_TRIGGER_DEFAULT_KEYWORDS = frozenset({"interruptible"})
#: Deprecated global keywords that act as ``default:`` (https://docs.gitlab.com/ci/yaml/deprecated_keywords/).
_GLOBAL_DEFAULTS = ("image", "services", "cache", "before_script", "after_script")


@dataclass(frozen=True)
class Fragment:
    """A piece of configuration: ``value`` at YAML ``path`` of ``file``; ``conditional`` when it comes from an
    include that has ``rules:``."""

    value: Any
    file: CIFile
    path: str
    conditional: bool = False

    def evidence(self, sub: str = "", detail: str | None = None) -> Evidence:
        """Evidence of ``path`` + ``sub`` in its file."""
        return self.file.evidence(f"{self.path}.{sub}" if sub else self.path, detail)


@dataclass
class ResolvedJob:
    """A job after merging: ``data`` (every keyword), ``fragments`` (its own and its templates', nearest last),
    ``extends`` (template names, nearest first), ``defaults`` (keywords taken from ``default:``)."""

    name: str
    data: dict[str, Any]
    fragments: list[Fragment]
    extends: list[str] = field(default_factory=list)
    global_variables: dict[str, Any] = field(default_factory=dict)
    conditional: bool = False

    @property
    def home(self) -> Fragment:
        """The fragment that defines the job itself (its key in the last file that writes it)."""
        return self.fragments[-1]

    def origin(self, key: str) -> Fragment:
        """The nearest fragment that writes ``key`` (the job's own, else a template's, else ``default:``)."""
        for frag in reversed(self.fragments):
            if isinstance(frag.value, dict) and key in frag.value:
                return frag
        return self.home


@dataclass
class Pipeline:
    """A merged pipeline: ``jobs``, ``workflow`` rules fragment, ``unresolved`` includes, ``problems``."""

    root: CIFile
    jobs: list[ResolvedJob]
    workflow: Fragment | None
    unresolved: list[Include]
    problems: list[InputError]
    conditional_files: set[str] = field(default_factory=set)
    #: the fragments of the top-level ``variables:`` (evidence of global variables), in merge order
    variables: list[Fragment] = field(default_factory=list)
    #: a child pipeline's configuration (``trigger: include``), not the project's root
    child: bool = False


def deep_merge(base: Any, over: Any) -> Any:
    """``over`` merged onto ``base``: mappings deeply, anything else replaced.

    >>> deep_merge({"a": {"x": 1, "y": [1]}, "b": 1}, {"a": {"y": [2]}, "c": None})
    {'a': {'x': 1, 'y': [2]}, 'b': 1, 'c': None}
    """
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            out[k] = deep_merge(out[k], v) if k in out else v
        return out
    return over


class _Assembler:
    def __init__(self, root: CIFile, files: dict[str, CIFile]) -> None:
        self.root, self.files = root, files
        self.keys: dict[str, list[Fragment]] = {}
        self.unresolved: list[Include] = []
        self.problems: list[InputError] = []
        self.conditional: set[str] = set()
        self.count = 0

    def visit(self, f: CIFile, stack: tuple[str, ...], conditional: bool) -> None:
        for inc in f.includes:
            if inc.kind != "local":
                self.unresolved.append(inc)
                continue
            targets = local_targets(inc, list(self.files))
            if not targets:
                self.unresolved.append(inc)
            for t in targets:
                if t in stack or len(stack) >= MAX_INCLUDE_DEPTH or self.count >= 150:
                    self.problems.append(InputError(f.file, inc.evidence.yaml_path or "include",
                                                    f"include of {t} refused: a cycle or past GitLab's include limits "
                                                    f"(line {inc.evidence.line})"))
                    continue
                self.count += 1
                self.visit(with_inputs(self.files[t], inc.inputs), (*stack, t), conditional or inc.conditional)
        if conditional:
            self.conditional.add(f.file)
        for k, v in f.data.items():
            self.keys.setdefault(k, []).append(Fragment(v, f, k, conditional))

    def merged(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, frags in self.keys.items():
            value: Any = None
            for i, frag in enumerate(frags):
                value = frag.value if i == 0 else deep_merge(value, frag.value)
            out[k] = value
        return out


class _Budget:
    """How many values ``!reference`` resolution may still build: references can nest and repeat (ten levels of
    ten references stand for 10**10 values), so the total is bounded like YAML aliases (``max_yaml_nodes``)."""

    def __init__(self) -> None:
        self.limit = limits.current().max_yaml_nodes
        self.left = 4 * self.limit  # the configuration is resolved twice (merged, and per fragment)

    def spend(self, where: Fragment) -> None:
        self.left -= 1
        if self.left < 0:
            raise InputError(where.file.file, where.path, limits.too_many(
                "max_yaml_nodes", self.limit, "more values than the limit once !reference tags are resolved"))


def _resolve_refs(value: Any, top: dict[str, Any], where: Fragment, problems: list[InputError], budget: _Budget,
                  depth: int = 0) -> Any:
    """``value`` with every :class:`Reference` replaced (sequences splice referenced sequences).

    Raises
    ------
    InputError
        when resolution would build more values than the budget allows.
    """
    budget.spend(where)
    if isinstance(value, Reference):
        if depth >= MAX_REFERENCE_DEPTH:
            problems.append(InputError(where.file.file, where.path, f"!reference nested deeper than "
                                       f"{MAX_REFERENCE_DEPTH} levels (line {value.line})"))
            return None
        target: Any = top
        for key in value.path:
            target = target.get(key) if isinstance(target, dict) else None
        if target is None:
            problems.append(InputError(where.file.file, where.path, f"!reference [{', '.join(value.path)}] names "
                                       f"nothing in the merged configuration (line {value.line})"))
        return _resolve_refs(target, top, where, problems, budget, depth + 1)
    if isinstance(value, dict):
        return {k: _resolve_refs(v, top, where, problems, budget, depth) for k, v in value.items()}
    if isinstance(value, list):
        out: list[Any] = []
        for item in value:
            got = _resolve_refs(item, top, where, problems, budget, depth)
            out.extend(got if isinstance(item, Reference) and isinstance(got, list) else [got])
        return out
    return value


def _extends_of(data: dict[str, Any]) -> list[str]:
    raw = data.get("extends")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        return [str(x) for x in raw if isinstance(x, (str, int, float))]
    return []


class _Extender:
    """``extends`` resolution with memo, cycle and depth checks."""

    def __init__(self, top: dict[str, Any], frags: dict[str, list[Fragment]], problems: list[InputError]) -> None:
        self.top, self.all, self.problems = top, frags, problems
        self.frags = {k: v[-1] for k, v in frags.items()}
        self.memo: dict[str, tuple[dict[str, Any], list[Fragment], list[str]]] = {}

    def resolve(self, name: str, stack: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[Fragment], list[str]]:
        if name in self.memo:
            return self.memo[name]
        own = self.top.get(name)
        own = own if isinstance(own, dict) else {}
        data: dict[str, Any] = {}
        frags: list[Fragment] = []
        chain: list[str] = []
        home = self.frags[name]
        for parent in _extends_of(own):
            if parent in stack or parent == name or len(stack) >= MAX_EXTENDS_DEPTH:
                self.problems.append(InputError(home.file.file, f"{home.path}.extends", f"extends {parent!r}: circular "
                                                f"or deeper than {MAX_EXTENDS_DEPTH} levels "
                                                f"(line {home.evidence('extends').line})"))
                continue
            if parent not in self.frags:
                self.problems.append(InputError(home.file.file, f"{home.path}.extends", f"extends {parent!r}: no such "
                                                f"job or template (line {home.evidence('extends').line})"))
                continue
            pdata, pfrags, pchain = self.resolve(parent, (*stack, name))
            data = deep_merge(data, pdata)
            frags += [f for f in pfrags if f not in frags]
            chain += [parent, *pchain]
        data = deep_merge(data, {k: v for k, v in own.items() if k != "extends"})
        result = (data, [*frags, *self.all[name]], list(dict.fromkeys(chain)))
        self.memo[name] = result
        return result


def _inherit(data: dict[str, Any], key: str) -> bool | set[str]:
    raw = data.get("inherit", {})
    value = raw.get(key, True) if isinstance(raw, dict) else True
    if isinstance(value, list):
        return {str(v) for v in value}
    return value is not False


def _apply_defaults(job: ResolvedJob, default: dict[str, Any], default_frag: Fragment | None,
                    variables: dict[str, Any]) -> None:
    which = _inherit(job.data, "default")
    usable = DEFAULT_KEYWORDS if job.data.get("trigger") is None else _TRIGGER_DEFAULT_KEYWORDS
    taken = {k: v for k, v in default.items() if k in usable and k not in job.data
             and (which is True or (isinstance(which, set) and k in which))}
    if taken and default_frag is not None:
        job.data.update(taken)
        job.fragments.insert(0, Fragment(taken, default_frag.file, default_frag.path, default_frag.conditional))
    vwhich = _inherit(job.data, "variables")
    job.global_variables = {k: v for k, v in variables.items()
                            if vwhich is True or (isinstance(vwhich, set) and k in vwhich)}


def _defaults(top: dict[str, Any], keys: dict[str, list[Fragment]]) -> tuple[dict[str, Any], Fragment | None]:
    default = dict(top["default"]) if isinstance(top.get("default"), dict) else {}
    frag = keys["default"][-1] if "default" in keys else None
    for k in _GLOBAL_DEFAULTS:
        if k in top and k not in default:
            default[k] = top[k]
            frag = frag or keys[k][-1]
    return default, frag


def assemble(root: CIFile, files: Iterable[CIFile], *, child: bool = False) -> Pipeline:
    """Merge the pipeline whose root configuration is ``root`` (``files``: every parsed file of the checkout,
    by path); see the module docstring.

    Returns
    -------
    Pipeline
        its jobs (hidden ones left out), ``workflow`` fragment, unresolved includes and problems (a missing
        ``extends`` parent, a cycle, a dangling ``!reference``...).
    """
    asm = _Assembler(root, {f.file: f for f in files})
    asm.visit(with_inputs(root, None), (root.file,), False)  # its own spec:inputs defaults (https://docs.gitlab.com/ci/inputs/)
    top = asm.merged()
    frags = {k: v[-1] for k, v in asm.keys.items()}
    scratch: list[InputError] = []  # each fragment resolved again for its evidence: problems reported once
    budget = _Budget()
    try:
        own = {k: [Fragment(_resolve_refs(f.value, top, f, scratch, budget), f.file, f.path, f.conditional)
                   for f in fs] for k, fs in asm.keys.items()}
        top = {k: _resolve_refs(v, top, frags[k], asm.problems, budget) for k, v in top.items()}
    except InputError as exc:  # nothing of this pipeline can be trusted to be complete
        return Pipeline(root, [], None, asm.unresolved, [*asm.problems, exc], asm.conditional, [], child)
    default, default_frag = _defaults(top, asm.keys)
    variables = top.get("variables") if isinstance(top.get("variables"), dict) else {}
    ext = _Extender(top, own, asm.problems)
    jobs: list[ResolvedJob] = []
    for name in asm.keys:
        if name in RESERVED or is_hidden(name) or not isinstance(top.get(name), dict):
            continue
        data, jfrags, chain = ext.resolve(name)
        job = ResolvedJob(name, dict(data), list(jfrags), chain,
                          conditional=any(f.conditional for f in asm.keys[name]))
        _apply_defaults(job, default, default_frag, variables or {})
        jobs.append(job)
    wf = asm.keys["workflow"][-1] if "workflow" in asm.keys else None
    workflow = Fragment(top["workflow"], wf.file, wf.path, wf.conditional) if wf is not None else None
    return Pipeline(root, jobs, workflow, asm.unresolved, _noted(asm), asm.conditional,
                    asm.keys.get("variables", []), child)


def _noted(asm: _Assembler) -> list[InputError]:
    """The problems; what is not found may be defined by an include that was not read: said so."""
    if not asm.unresolved:
        return asm.problems
    names = sorted({(i.kind, i.target) for i in asm.unresolved})
    # the first of each kind (a template or project include among many components is named), then up to 5 in all
    shown = list(dict.fromkeys([*(next(n for n in names if n[0] == k) for k in dict.fromkeys(k for k, _ in names)),
                                *names]))[:max(5, len({k for k, _ in names}))]
    more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    note = " (or in an include graphkit does not fetch: " + ", ".join(f"{k} {t}" for k, t in shown) + more + ")"
    return [InputError(p.file, p.place, p.reason.replace(" (line", note + " (line", 1))
            if "names nothing" in p.reason or "no such job" in p.reason else p for p in asm.problems]

