"""Which secrets a job reads, named as the repository that holds them knows them (pure).

A top-level job reads its repository's secrets by name.  A job of a called
workflow sees what its caller passes: everything with ``secrets: inherit``,
else only the names of an explicit ``secrets:`` mapping, each standing for
whatever the caller's expression reads (:class:`SecretMap`).  A read of the
whole context (``toJSON(secrets)``, dynamic ``secrets[...]``) is recorded as
evidence (``Job.all_secrets``), never as an empty list.
Source: https://docs.github.com/en/actions/sharing-automations/reusing-workflows#passing-inputs-and-secrets-to-a-reusable-workflow
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from graphkit.model import Evidence, SecretRef, secret_key
from ingest._yaml import join_path

from .evidence import Src
from .expressions import _SECRETS_WORD, expressions, mentions_secrets, scan_secrets
from .models import JobDef, WorkflowFile

__all__ = ["STORED_SECRET_NAME", "SecretMap", "secret_exprs", "secret_refs"]


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """``(yaml path, text)`` of every string under ``value`` that names the ``secrets`` context (the only ones
    :func:`secret_exprs` reads: an expression that mentions it is a part of its text between whitespace or
    ``${{ }}``, where the same word test holds), in document order; paths are built for those only."""
    if isinstance(value, str):
        if _SECRETS_WORD.search(value) is not None:
            yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if _SECRETS_WORD.search(v) is not None:
                    yield join_path(path, str(k)), v
            elif isinstance(v, (dict, list)):
                yield from _strings(v, join_path(path, str(k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, str):
                if _SECRETS_WORD.search(v) is not None:
                    yield join_path(path, i), v
            elif isinstance(v, (dict, list)):
                yield from _strings(v, join_path(path, i))


def secret_exprs(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """``(yaml_path, expression)`` for every expression under ``value`` that reads secrets (``if:`` may be bare).

    >>> list(secret_exprs({"if": "secrets.A != ''", "run": "echo ${{ secrets.B }}"}, "jobs.a"))
    [('jobs.a.if', "secrets.A != ''"), ('jobs.a.run', 'secrets.B')]
    """
    for p, text in _strings(value, path):
        for e in expressions(text, bare=p.endswith(".if") or p == "if"):
            if mentions_secrets(e):
                yield p, e


#: A name a repository, organization or environment secret can have: letters, digits and ``_``, not starting with
#: a digit.  https://docs.github.com/en/actions/security-for-github-actions/security-guides/about-secrets
#: ("Naming your secrets").  Secrets a reusable workflow declares under ``on.workflow_call.secrets`` may also
#: hold ``-`` (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax
#: #onworkflow_callsecrets): such a name is only ever filled by a caller's ``secrets:`` mapping.
STORED_SECRET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SecretMap:
    """How secret names seen by a job map to names of the repository that holds them.

    ``None`` mapping: identity (a top-level job, or ``secrets: inherit``); a
    name no stored secret can have (``aws-access-key-id``) reads nothing then,
    unless ``any_name`` (a reusable workflow instantiated for an unknown
    caller: the caller fills its declared secrets, whatever their names).
    Otherwise callee name (upper) -> (caller names, evidence of a dynamic read).
    """

    def __init__(self, mapping: dict[str, tuple[list[str], Evidence | None]] | None = None, *,
                 any_name: bool = False, possible: bool = False) -> None:
        self.mapping = mapping
        self.any_name = any_name
        #: the names may not be passed at all (``secrets: inherit`` across organizations: :meth:`inherited`)
        self.possible = possible

    def inherited(self, same_owner: bool) -> SecretMap:
        """The map a callee sees through ``secrets: inherit``: this one; ``possible`` when the called workflow
        is of another organization (inherit passes secrets within one organization, or across organizations of
        one enterprise, which is not read:
        https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idsecretsinherit).

        >>> SecretMap().inherited(False).possible, SecretMap().inherited(True).possible
        (True, False)
        """
        return self if same_owner else SecretMap(self.mapping, any_name=self.any_name, possible=True)

    def map(self, name: str) -> tuple[list[str], Evidence | None]:
        """``(names in the holding repository, evidence that the name stands for every secret)``.

        >>> SecretMap().map("github-token"), SecretMap().map("DEPLOY_KEY")
        (([], None), (['DEPLOY_KEY'], None))
        """
        if self.mapping is None:
            return ([name] if self.any_name or STORED_SECRET_NAME.fullmatch(name) else []), None
        return self.mapping.get(secret_key(name), ([], None))

    def everything(self) -> tuple[list[str], bool, Evidence | None]:
        """``(names, all, all-evidence)`` for a read of the whole context."""
        if self.mapping is None:
            return [], True, None
        names = [n for ns, _ in self.mapping.values() for n in ns]
        ev = next((e for _, e in self.mapping.values() if e is not None), None)
        return list(dict.fromkeys(names)), ev is not None, ev

    def explicit(self, secrets: dict[str, Any], src: Src, path: str) -> SecretMap:
        """The map a callee sees through its caller's explicit ``secrets:`` mapping (at YAML ``path``)."""
        out: dict[str, tuple[list[str], Evidence | None]] = {}
        for name, value in secrets.items():
            names: list[str] = []
            ev = None
            for p, e in secret_exprs(value, join_path(path, name)):
                found, everything = scan_secrets(e)
                for n in found:
                    mapped, mev = self.map(n)
                    names += mapped
                    ev = ev or mev
                if everything:
                    more, is_all, aev = self.everything()
                    names += more
                    ev = ev or (src.ev(p, e) if is_all and aev is None else aev)
            out[secret_key(name)] = (list(dict.fromkeys(names)), ev)
        return SecretMap(out, possible=self.possible)


def secret_refs(wf: WorkflowFile, jd: JobDef, src: Src, smap: SecretMap) -> tuple[list[SecretRef], Evidence | None]:
    """The secrets a job reads (workflow ``env`` and the whole job mapping), through ``smap``.

    A job that calls a reusable workflow (``jobs.<id>.uses``) runs no step of its own, and the caller's
    workflow-level ``env`` is not propagated to the called workflow ("Any environment variables set in an env
    context defined at the workflow level in the caller workflow are not propagated to the called workflow",
    https://docs.github.com/en/actions/sharing-automations/reusing-workflows#limitations): such a job reads
    only what its own mapping names (``with:``, ``secrets:``, ``if:``).

    Returns
    -------
    tuple
        ``(references, all)``: one :class:`SecretRef` per secret name (upper
        case identity, first evidence kept), and the evidence of a read of
        every secret (None when there is none).
    """
    refs: dict[str, SecretRef] = {}
    all_ev = None
    workflow_env = secret_exprs(wf.env, "env") if jd.uses is None else iter(())
    for p, e in itertools.chain(workflow_env, secret_exprs(jd.raw, f"jobs.{jd.key}")):
        names, everything = scan_secrets(e)
        ev = src.ev(p, f"${{{{ {e} }}}}")
        for n in names:
            mapped, mev = smap.map(n)
            all_ev = all_ev or mev
            for m in mapped:
                refs.setdefault(secret_key(m), SecretRef(name=m, evidence=ev, possible=smap.possible))
        if everything:
            mapped, is_all, aev = smap.everything()
            for m in mapped:
                refs.setdefault(secret_key(m), SecretRef(name=m, evidence=ev, possible=smap.possible))
            if is_all:
                all_ev = all_ev or aev or ev
    return list(refs.values()), all_ev
