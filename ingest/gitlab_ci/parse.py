"""GitLab CI/CD configuration text -> :class:`~.models.CIFile` (pure: no I/O).

One file at a time, as GitLab reads it (GitLab docs "CI/CD YAML syntax reference",
https://docs.gitlab.com/ci/yaml/):

- the optional header document (``spec: inputs: ...`` then ``---``, https://docs.gitlab.com/ci/yaml/#spec) is
  read and left aside; the configuration is the second document (its lines keep their numbers);
- ``!reference [.job, key, ...]`` loads as a :class:`~.models.Reference`
  (https://docs.gitlab.com/ci/yaml/yaml_optimization/#reference-tags), resolved once includes are merged;
  anchors, aliases and ``<<`` merge keys are YAML's own (https://docs.gitlab.com/ci/yaml/yaml_optimization/#anchors);
- ``include:`` (string, list, or mapping) becomes :class:`~.models.Include` entries: ``local`` (a path, or a
  string that is not a URL), ``project`` (+ ``file``, ``ref``), ``remote`` (a URL), ``template``,
  ``component`` (https://docs.gitlab.com/ci/yaml/#include).

A file that is not YAML, or whose document is not a mapping, raises :class:`~graphkit.errors.InputError`
naming file and line; inside a usable file, a malformed ``include`` entry or a job that is not a mapping is
left out as one problem naming its YAML path and line.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from graphkit import limits
from graphkit.errors import InputError
from graphkit.redact import strip_embedded_urls
from ingest._yaml import Loader, join_path, line_of, load_yaml, type_name

from .models import CIFile, Include, Project, Reference

__all__ = ["RESERVED", "parse_config", "is_hidden"]

#: Top-level keys that are not jobs (https://docs.gitlab.com/ci/yaml/#global-keywords; ``image``,
#: ``services``, ``cache``, ``before_script`` and ``after_script`` are the deprecated global defaults,
#: https://docs.gitlab.com/ci/yaml/deprecated_keywords/).  ``pages`` is a job.
RESERVED = frozenset({"default", "include", "stages", "variables", "workflow", "spec", "image", "services", "cache",
                      "before_script", "after_script", "types"})

_HEADER_END = re.compile(r"^---[ \t]*$", re.M)
_URL = re.compile(r"^https?://", re.I)


def is_hidden(name: str) -> bool:
    """A hidden job (``.name``): a template, never run (https://docs.gitlab.com/ci/jobs/#hide-a-job)."""
    return name.startswith(".")


class _CILoader(Loader):
    """The one YAML loader plus GitLab's ``!reference`` tag; a key defined twice in one mapping keeps its last
    definition, as GitLab reads it (Ruby's Psych builds a ``Hash``: a later assignment replaces the value, no
    error): GitLab runs such a configuration, e.g. gitlab-org/gitlab's own ``.gitlab-ci.yml`` once defined
    ``before_script`` twice in one job (local runners that follow GitLab accept it too:
    https://github.com/firecow/gitlab-ci-local/pull/1146)."""

    duplicate_keys = "last"


def _reference(loader: _CILoader, node: yaml.Node) -> Reference:
    line = node.start_mark.line + 1
    if not isinstance(node, yaml.SequenceNode) or not node.value or \
            not all(isinstance(n, yaml.ScalarNode) for n in node.value):
        raise yaml.constructor.ConstructorError(None, None, "!reference expects a sequence of keys such as "
                                                "[.job, script]", node.start_mark)
    return Reference(tuple(str(n.value) for n in node.value), line)


_CILoader.add_constructor("!reference", _reference)


def _body(text: str, file: str) -> tuple[str, dict[str, Any]]:
    """The configuration document: after a ``spec:`` header and its ``---``, with the header's lines blanked
    (line numbers unchanged), and the header's inputs (name -> default, None without one).  Raises
    :class:`InputError` for a malformed header."""
    m = _HEADER_END.search(text)
    if m is None or m.start() == 0:
        return (text[m.end():] if m is not None else text), {}
    head = text[:m.start()]
    data, _ = load_yaml(head, file=file, loader=_CILoader)
    if not (isinstance(data, dict) and set(data) <= {"spec"}):
        return text, {}  # not a header: load_yaml names the second document as the error
    spec = data.get("spec")
    raw = spec.get("inputs") if isinstance(spec, dict) else None
    inputs = {str(k): (v.get("default") if isinstance(v, dict) else None)
              for k, v in raw.items()} if isinstance(raw, dict) else {}
    return "\n" * text.count("\n", 0, m.end()) + text[m.end():], inputs


def _clean(target: str) -> str:
    """An include target without URL credentials (``https://user:token@host/...``, ``?private_token=``):
    :func:`graphkit.redact.strip_embedded_urls`."""
    return strip_embedded_urls(target).url if "://" in target else target


def _include_entry(raw: Any, path: str, f: CIFile) -> Include:
    """One ``include`` entry; raises :class:`InputError` (file, path, reason) when GitLab could not read it."""
    ev = f.evidence(path)
    if isinstance(raw, str):
        return Include("remote" if _URL.match(raw) else "local", _clean(raw), False, ev)
    if not isinstance(raw, dict):
        raise InputError(f.file, path, f"expected a path or a mapping, got {type_name(raw)}")
    conditional = "rules" in raw
    given = raw.get("inputs")
    inputs = {str(k): v for k, v in given.items()} if isinstance(given, dict) else None
    for kind in ("local", "remote", "template", "component", "artifact"):
        if kind in raw:
            value = raw[kind]
            if not isinstance(value, str):
                raise InputError(f.file, join_path(path, kind), f"expected a string, got {type_name(value)}")
            return Include(kind, _clean(value), conditional, ev, inputs)  # type: ignore[arg-type]
    if "project" in raw:
        files = raw.get("file")
        names = files if isinstance(files, list) else [files]
        ref = raw.get("ref")
        target = f"{raw['project']}:{','.join(str(n) for n in names)}" + (f"@{ref}" if ref is not None else "")
        return Include("project", target, conditional, ev)
    raise InputError(f.file, path, "expected one of local, project, remote, template, component")


def _includes(raw: Any, f: CIFile, at: str = "include") -> list[Include]:
    entries = raw if isinstance(raw, list) else [raw]
    out: list[Include] = []
    for i, entry in enumerate(entries):
        place = join_path(at, i) if isinstance(raw, list) else at
        try:
            out.append(_include_entry(entry, place, f))
        except InputError as exc:
            f.problems.append(_at(exc, f))
    return out


def _at(exc: InputError, f: CIFile) -> InputError:
    """``exc`` with the line of its YAML path appended."""
    line = line_of(f.lines, exc.place)
    return InputError(exc.file, exc.place, f"{exc.reason} (line {line})" if line else exc.reason)


def parse_config(text: str, *, file: str, project: Project) -> CIFile:
    """Parse one configuration file.

    Parameters
    ----------
    text
        the file's text.
    file
        its path relative to the checkout (evidence and errors name it).
    project
        the project whose pipeline reads it.

    Returns
    -------
    CIFile
        ``data`` without ``include``; jobs that are not mappings are left out (one problem each).

    Raises
    ------
    InputError
        when the text is not YAML or its document is not a mapping (an empty file is an empty mapping).
    """
    body, spec_inputs = _body(text, file)
    data, lines = load_yaml(body, file=file, loader=_CILoader)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(file, "", f"expected a mapping of jobs and keywords, got {type_name(data)}")
    f = CIFile(file=file, project=project, data={}, lines=lines, spec_inputs=spec_inputs)
    cap = limits.current().max_jobs_per_file
    if len(data) > cap:
        raise InputError(file, "", limits.too_many("max_jobs_per_file", cap, f"{len(data)} top-level keys"))
    for key, value in data.items():
        name = str(key)
        if name == "include":
            f.includes = _includes(value, f)
        elif name in RESERVED or is_hidden(name) or isinstance(value, (dict, Reference)):
            f.data[name] = value
        else:
            f.problems.append(_at(InputError(file, name, f"a job must be a mapping, got {type_name(value)}"), f))
        trigger = value.get("trigger") if isinstance(value, dict) else None
        if isinstance(trigger, dict) and trigger.get("include") is not None:
            f.children += _includes(trigger["include"], f, join_path(join_path(name, "trigger"), "include"))
    return f
