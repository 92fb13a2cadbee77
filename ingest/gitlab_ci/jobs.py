"""A merged job -> :class:`~graphkit.model.GitLabJob` (pure).

Keywords read (GitLab docs "CI/CD YAML syntax reference", https://docs.gitlab.com/ci/yaml/): ``stage``,
``tags``, ``when``, ``environment``, ``variables``, ``secrets``, ``id_tokens``, ``image``, ``services``,
``trigger``, and the conditions (:mod:`.conditions`).  A keyword of the wrong shape is left out as one
problem naming file, YAML path and line; the job is kept.  Values of variables are never stored: only names,
whether they look like credentials (:func:`graphkit.redact.looks_like_credential_name`,
:func:`graphkit.redact.find_credentials`) and the variables they expand.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from graphkit.errors import InputError
from graphkit.model import Confidence, GitLabEnvironment, GitLabIdToken, GitLabJob, GitLabSecret, GitLabVariable
from graphkit.redact import find_credentials, looks_like_credential_name, strip_embedded_urls
from ingest._yaml import type_name

from .conditions import Conditions, reduce_triggers
from .merge import Fragment, Pipeline, ResolvedJob
from .shapes import policy_problems, rules_problems, when_problem, workflow_problems

__all__ = ["child_files", "forwarded_variables", "generated_children", "instance_host",
           "global_variables", "job_conditions", "job_facts", "variable_names", "workflow_shape"]

_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_SCRIPT_KEYS = ("script", "before_script", "after_script")


def variable_names(value: Any) -> list[str]:
    """Names of the variables ``$NAME`` / ``${NAME}`` that ``value`` (text, or nested lists/mappings) expands.

    >>> variable_names(["echo $A ${B}", {"x": "$A-$C_1"}])
    ['A', 'B', 'C_1']
    """
    found: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop(0)
        if isinstance(v, str):
            found += [a or b for a, b in _VAR.findall(v)]
        elif isinstance(v, list):
            stack[:0] = v
        elif isinstance(v, dict):
            stack[:0] = list(v.values())
    return list(dict.fromkeys(found))


@lru_cache(maxsize=4096)
def _credential_like(name: str, text: str) -> bool:
    """The name says credential, or the literal value holds one (:mod:`graphkit.redact`; the value is not kept)."""
    return looks_like_credential_name(name) or bool(text and "$" not in text and find_credentials(f"{name}: {text}"))


class _Facts:
    """Reads one job's keywords, collecting problems."""

    def __init__(self, job: ResolvedJob, problems: list[InputError]) -> None:
        self.job, self.problems = job, problems

    def bad(self, key: str, reason: str, sub: str = "", *, below: str | None = None) -> None:
        """One problem at ``key.sub`` (or ``key`` + ``below``, a path such as ``[1].when``)."""
        frag = self.job.origin(key)
        ev = frag.evidence(key + below if below is not None else f"{key}.{sub}" if sub else key)
        self.problems.append(InputError(frag.file.file, ev.yaml_path or frag.path, f"{reason} (line {ev.line})"))

    def conditions_shape(self) -> tuple[str, bool]:
        """The job's ``when`` and whether its conditions are unknown: each of ``when``, ``rules``, ``only``,
        ``except`` of the wrong shape (:mod:`.shapes`) is one problem and makes them unknown (``when`` of the
        wrong shape reads as ``on_success``)."""
        raw = self.job.data.get("when")
        why = when_problem(raw) if raw is not None else None
        if why:
            self.bad("when", why)
        unknown = bool(why)
        for key, check in (("rules", rules_problems), ("only", policy_problems), ("except", policy_problems)):
            if self.job.data.get(key) is not None:
                for below, reason in check(self.job.data[key]):
                    self.bad(key, reason, below=below)
                    unknown = True
        return (str(raw) if raw is not None and not why else "on_success"), unknown

    def text(self, key: str) -> str | None:
        v = self.job.data.get(key)
        if v is None or isinstance(v, (str, int, float)) and not isinstance(v, bool):
            return None if v is None else str(v)
        self.bad(key, f"expected a string, got {type_name(v)}")
        return None

    def tags(self) -> tuple[str, ...]:
        raw = self.job.data.get("tags")
        if raw is None:
            return ()
        items = raw if isinstance(raw, list) else [raw]
        out = [str(t) for t in items if isinstance(t, (str, int, float)) and not isinstance(t, bool)]
        if len(out) != len(items):
            self.bad("tags", "expected a list of tag names")
        return tuple(dict.fromkeys(out))

    def environment(self) -> GitLabEnvironment | None:
        raw = self.job.data.get("environment")
        if raw is None:
            return None
        ev = self.job.origin("environment").evidence("environment")
        spec = {"name": raw} if isinstance(raw, str) else raw
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            self.bad("environment", "expected a name or a mapping with name")
            return None
        tier = spec.get("deployment_tier")
        url = spec.get("url")
        return GitLabEnvironment(name=spec["name"], dynamic="$" in spec["name"],
                                 deployment_tier=str(tier) if isinstance(tier, str) else None,
                                 action=str(spec.get("action") or "start"),
                                 url=strip_embedded_urls(url).url if isinstance(url, str) else None, evidence=ev)

    def _variables(self, raw: Any, frags: list[Fragment], scope: str, key: str) -> list[GitLabVariable]:
        if raw is None:
            return []
        if not isinstance(raw, dict):
            self.bad(key, f"expected a mapping, got {type_name(raw)}")
            return []
        out = []
        for name, value in raw.items():
            frag = next((f for f in reversed(frags) if isinstance(f.value, dict) and
                         isinstance(f.value.get(key) if scope == "job" else f.value, dict) and
                         name in (f.value.get(key) if scope == "job" else f.value)), frags[-1])
            path = f"{key}.{name}" if scope == "job" else str(name)
            literal = value.get("value") if isinstance(value, dict) else value
            text = "" if literal is None or isinstance(literal, (dict, list)) else str(literal)
            creds = _credential_like(str(name), text)
            out.append(GitLabVariable(name=str(name), scope=scope, credential_like=creds,  # type: ignore[arg-type]
                                      references=tuple(variable_names(text)), evidence=frag.evidence(path)))
        return out

    def variables(self, pipeline: Pipeline, globals_: list[GitLabVariable]) -> tuple[GitLabVariable, ...]:
        own = self._variables(self.job.data.get("variables"), self.job.fragments, "job", "variables")
        names = {v.name for v in own}
        return tuple(own + [v for v in globals_ if v.name in self.job.global_variables and v.name not in names])

    def secrets(self) -> tuple[GitLabSecret, ...]:
        raw = self.job.data.get("secrets")
        if raw is None:
            return ()
        if not isinstance(raw, dict):
            self.bad("secrets", f"expected a mapping, got {type_name(raw)}")
            return ()
        frag = self.job.origin("secrets")
        out = []
        for name, spec in raw.items():
            got = _secret(str(name), spec, frag)
            if got is None:
                self.bad("secrets", "expected vault, azure_key_vault, gcp_secret_manager or aws_secrets_manager",
                         str(name))
            else:
                out.append(got)
        return tuple(out)

    def id_tokens(self) -> tuple[GitLabIdToken, ...]:
        raw = self.job.data.get("id_tokens")
        if raw is None:
            return ()
        if not isinstance(raw, dict):
            self.bad("id_tokens", f"expected a mapping, got {type_name(raw)}")
            return ()
        frag = self.job.origin("id_tokens")
        out = []
        for name, spec in raw.items():
            aud = spec.get("aud") if isinstance(spec, dict) else None
            auds = aud if isinstance(aud, list) else [aud] if aud is not None else []
            if not auds or not all(isinstance(a, (str, int)) for a in auds):
                self.bad("id_tokens", "expected aud: a string or a list of strings", str(name))
                continue
            out.append(GitLabIdToken(name=str(name), aud=tuple(str(a) for a in auds), confidence=_conf(frag),
                                     evidence=frag.evidence(f"id_tokens.{name}")))
        return tuple(out)

    def images(self) -> tuple[str | None, tuple[str, ...]]:
        img = self.job.data.get("image")
        image = img.get("name") if isinstance(img, dict) else img
        raw = self.job.data.get("services")
        services = [s.get("name") if isinstance(s, dict) else s for s in (raw if isinstance(raw, list) else [])]
        return (strip_embedded_urls(str(image)).url if isinstance(image, (str, int)) else None,
                tuple(strip_embedded_urls(s).url for s in services if isinstance(s, str)))

    def bridge(self) -> str | None:
        raw = self.job.data.get("trigger")
        if raw is None:
            return None
        if isinstance(raw, str):
            return raw
        if isinstance(raw, dict):
            return str(raw["project"]) if isinstance(raw.get("project"), str) else "child pipeline"
        return "child pipeline"

    def children(self) -> tuple[str, ...]:
        """Local files of ``trigger: include`` (https://docs.gitlab.com/ci/yaml/#triggerinclude), from the
        checkout root, then the names of its generated ones (:func:`generated_children`)."""
        out = [e if isinstance(e, str) else e.get("local") if isinstance(e, dict) else None
               for e in _trigger_includes(self.job)]
        local = [str(x).strip().lstrip("/") for x in out if isinstance(x, str) and "://" not in x]
        return tuple(local + [name for name, _ in generated_children(self.job)])


def _trigger_includes(job: ResolvedJob) -> list[Any]:
    raw = job.data.get("trigger")
    inc = raw.get("include") if isinstance(raw, dict) else None
    return inc if isinstance(inc, list) else [inc] if inc is not None else []


def generated_children(job: ResolvedJob) -> list[tuple[str, str]]:
    """The dynamic child pipelines of a trigger job: ``trigger: include: - artifact: FILE job: JOB``
    (https://docs.gitlab.com/ci/pipelines/downstream_pipelines/#dynamic-child-pipelines), each as ``(name,
    FILE)``: the name graphkit gives its configuration, ``FILE (artifact of JOB)`` (no checkout path of the
    pipeline's files: the file exists only at run time)."""
    out = []
    for e in _trigger_includes(job):
        if isinstance(e, dict) and isinstance(e.get("artifact"), (str, int, float)):
            path, maker = str(e["artifact"]).strip().lstrip("/"), e.get("job")
            out.append((f"{path} (artifact of {maker if isinstance(maker, (str, int, float)) else 'a job'})", path))
    return out


def child_files(job: ResolvedJob) -> tuple[str, ...]:
    """The local files of the job's ``trigger: include`` (its child pipeline's configuration), from the checkout
    root; ``()`` for any other job."""
    return _Facts(job, []).children()


def _conf(frag: Fragment) -> Confidence:
    return Confidence.POSSIBLE if frag.conditional else Confidence.CERTAIN


def _secret(name: str, spec: Any, frag: Fragment) -> GitLabSecret | None:
    """One ``secrets:`` entry (https://docs.gitlab.com/ci/yaml/#secrets; Vault short form
    ``path/to/secret/field@engine``, engine ``kv-v2`` by default: https://docs.gitlab.com/ci/yaml/#secretsvault)."""
    if not isinstance(spec, dict):
        return None
    token = spec.get("token")
    token_name = str(token).strip().lstrip("$").strip("{}") if isinstance(token, str) else None
    common = {"name": name, "token": token_name, "file": spec.get("file", True) is not False,
              "evidence": frag.evidence(f"secrets.{name}"), "confidence": _conf(frag)}
    vault = spec.get("vault")
    if isinstance(vault, str):
        body, _, engine = vault.partition("@")
        path, _, field = body.rpartition("/")
        return GitLabSecret(provider="vault", path=f"{engine or 'kv-v2'}/{path or body}", field=field or None,
                            **common)
    if isinstance(vault, dict):
        engine = vault.get("engine") if isinstance(vault.get("engine"), dict) else {}
        mount = engine.get("path") or "kv-v2"
        field = vault.get("field")
        return GitLabSecret(provider="vault", path=f"{mount}/{vault.get('path', '')}".rstrip("/"),
                            field=str(field) if field is not None else None, **common)
    for provider, key in (("azure_key_vault", "name"), ("gcp_secret_manager", "name"),
                          ("aws_secrets_manager", "secret_id")):
        sub = spec.get(provider)
        if isinstance(sub, dict) and sub.get(key) is not None:
            return GitLabSecret(provider=provider, path=str(sub[key]), **common)  # type: ignore[arg-type]
        if isinstance(sub, str) and provider == "aws_secrets_manager":
            return GitLabSecret(provider=provider, path=sub, **common)
    return None


def global_variables(pipeline: Pipeline, problems: list[InputError]) -> list[GitLabVariable]:
    """The top-level ``variables:`` of a pipeline (names, never values), read once for all its jobs."""
    frags = pipeline.variables
    if not frags:
        return []
    merged: dict = {}
    for f in frags:
        merged.update(f.value if isinstance(f.value, dict) else {})
    home = ResolvedJob("variables", {"variables": merged}, list(frags))
    return _Facts(home, problems)._variables(merged, frags, "global", "variables")


_TAG_WORD = re.compile(r"[A-Za-z0-9_.:/+-]+")


def _expanded(tags: tuple[str, ...], job: ResolvedJob) -> tuple[str, ...]:
    """``tags`` with ``$NAME`` replaced by the literal value the configuration gives ``NAME`` (job variables over
    global ones), when each is a plain tag word that does not look like a credential; else ``()``."""
    if not any("$" in t for t in tags):
        return ()
    own = job.data.get("variables")
    values = {**job.global_variables, **(own if isinstance(own, dict) else {})}

    def value(name: str) -> str | None:
        v = values.get(name)
        v = v.get("value") if isinstance(v, dict) else v
        text = str(v) if isinstance(v, (str, int, float)) and not isinstance(v, bool) else None
        ok = text is not None and _TAG_WORD.fullmatch(text) and not _credential_like(name, text)
        return text if ok else None

    out = []
    for tag in tags:
        names = [a or b for a, b in _VAR.findall(tag)]
        got = {n: value(n) for n in names}
        if None in got.values():
            return ()
        out.append(_VAR.sub(lambda m: got[m.group(1) or m.group(2)] or "", tag))
    return tuple(dict.fromkeys(out))


def forwarded_variables(job: ResolvedJob, pipeline: Pipeline) -> tuple[GitLabVariable, ...]:
    """The variables a trigger job passes to the pipeline it starts (scope ``trigger``): its own and the global ones
    it inherits (``inherit:variables`` decides both, https://gitlab.com/gitlab-org/gitlab/-/issues/368759), none with
    ``trigger:forward:yaml_variables: false`` (https://docs.gitlab.com/ci/yaml/#triggerforward;
    pipeline variables, ``forward:pipeline_variables``, are set when a pipeline is run, never in the file)."""
    raw = job.data.get("trigger")
    forward = raw.get("forward") if isinstance(raw, dict) else None
    if isinstance(forward, dict) and forward.get("yaml_variables") is False:
        return ()
    got = _Facts(job, []).variables(pipeline, global_variables(pipeline, []))
    return tuple(v.model_copy(update={"scope": "trigger"}) for v in got)


def instance_host(pipeline: Pipeline) -> str | None:
    """The host of the pipeline's GitLab instance (``https://gitlab.com`` -> ``gitlab.com``), None when none."""
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", pipeline.root.project.instance.strip(), flags=re.I).split("/")[0]
    return host.lower() or None


def job_conditions(job: ResolvedJob, pipeline: Pipeline, problems: list[InputError], workflow_unknown: bool,
                   parents: tuple[Conditions, ...] = ()) -> Conditions:
    """The :class:`~.conditions.Conditions` of a merged job (``problems``: its conditions of the wrong shape);
    ``parents``: those of the trigger jobs that start its pipeline when it is a child pipeline."""
    when, unknown = _Facts(job, problems).conditions_shape()
    rules_frag = next((job.origin(k) for k in ("rules", "only", "except") if k in job.data), job.home)
    rules_key = next((k for k in ("rules", "only", "except") if k in job.data), "")
    wf = pipeline.workflow.value if pipeline.workflow is not None else None
    return Conditions(rules=job.data.get("rules"), only=job.data.get("only"), except_=job.data.get("except"),
                      when=when, workflow=wf, evidence=rules_frag.evidence(rules_key),
                      conditional=job.conditional, child=pipeline.child, unknown=unknown,
                      workflow_unknown=workflow_unknown,
                      project=pipeline.root.project.path if pipeline.root.project.known else None,
                      parents=parents if pipeline.child else ())


def job_facts(job: ResolvedJob, pipeline: Pipeline, problems: list[InputError],
              globals_: list[GitLabVariable] | None = None, workflow_unknown: bool | None = None,
              parents: tuple[Conditions, ...] = (), forwarded: tuple[GitLabVariable, ...] = ()) -> GitLabJob:
    """The :class:`~graphkit.model.GitLabJob` of a merged job (shapes: see :mod:`graphkit.model.gitlab`).

    ``problems`` receives one entry per keyword left out (conditions of the wrong shape: the job's triggers are
    unknown, every pipeline ``possible``); ``globals_``: :func:`global_variables` of the pipeline (read here when
    not given); ``workflow_unknown``: the pipeline's ``workflow`` has the wrong shape (checked here when not
    given; :func:`workflow_shape` reports it once per pipeline); ``parents``: a child pipeline's trigger jobs'
    conditions (:func:`job_conditions`); ``forwarded``: the variables they pass on (:func:`forwarded_variables`),
    which win over the job's own of the same name.
    """
    r = _Facts(job, problems)
    if globals_ is None:
        globals_ = global_variables(pipeline, problems)
    if workflow_unknown is None:
        workflow_unknown = workflow_shape(pipeline, [])
    tags = r.tags()
    image, services = r.images()
    cond = job_conditions(job, pipeline, problems, workflow_unknown, parents)
    refs = variable_names([job.data.get(k) for k in (*_SCRIPT_KEYS, "variables", "image", "services", "tags",
                                                      "environment")])
    return GitLabJob(project=pipeline.root.project.path, config_file=pipeline.root.file, file=job.home.file.file,
                     name=job.name, instance=instance_host(pipeline), stage=r.text("stage") or "test", tags=tags,
                     dynamic_tags=tuple(t for t in tags if "$" in t), expanded_tags=_expanded(tags, job),
                     bridge=r.bridge(), child_pipelines=r.children(), when=cond.when,
                     environment=r.environment(), triggers=reduce_triggers(cond),
                     variables=_with_forwarded(r.variables(pipeline, globals_), forwarded),
                     referenced_variables=tuple(refs), secrets=r.secrets(), id_tokens=r.id_tokens(), image=image,
                     services=services, extends=tuple(job.extends),
                     config_unresolved=tuple(f"{i.kind}: {i.target}" for i in pipeline.unresolved),
                     evidence=job.home.evidence())


def _with_forwarded(own: tuple[GitLabVariable, ...], forwarded: tuple[GitLabVariable, ...]) -> tuple[GitLabVariable, ...]:
    names = {v.name for v in forwarded}
    return tuple([*dict((v.name, v) for v in forwarded).values(), *(v for v in own if v.name not in names)])


def workflow_shape(pipeline: Pipeline, problems: list[InputError]) -> bool:
    """Whether the pipeline's ``workflow`` has the wrong shape (:func:`.shapes.workflow_problems`), each wrong
    shape appended to ``problems`` (file, YAML path, line)."""
    frag = pipeline.workflow
    found = workflow_problems(frag.value) if frag is not None else []
    for below, reason in found:
        ev = frag.evidence(below.lstrip(".")) if below else frag.evidence()  # type: ignore[union-attr]
        problems.append(InputError(frag.file.file, ev.yaml_path or frag.path,  # type: ignore[union-attr]
                                   f"{reason} (line {ev.line})"))
    return bool(found)
