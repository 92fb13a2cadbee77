"""How a workflow's jobs are being instantiated (:class:`Call`) and where a ``uses:`` points (pure)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphkit.model import Evidence, IfVerdict

from .expressions import Val
from .models import WorkflowFile
from .secrets import SecretMap
from .untrusted import Taint

__all__ = ["Call", "uses_target"]


@dataclass(frozen=True)
class Call:
    """How a workflow's jobs are being instantiated."""

    top: WorkflowFile                # the triggering workflow
    chain: tuple[tuple[str, str], ...]  # (repo key, path) of each workflow level
    caller_id: str | None = None
    inputs: dict[str, list[Val] | None] | None = None
    secrets: SecretMap = field(default_factory=SecretMap)
    cap: dict[str, str] | None = None
    #: where the cap is decided (the caller's ``permissions`` block), and whether it is the unknown default
    cap_ev: Evidence | None = None
    default_cap: bool = False
    #: the calling job's ``uses`` (where GitHub reports a call it refuses)
    call_ev: Evidence | None = None
    job_workflow_ref: str | None = None
    #: a reusable workflow no ingested workflow calls: its inputs come from an unknown caller
    unknown_caller: bool = False
    #: the run is that of a caller outside the ingested files (this level or above): everything is possible
    unknown_top: bool = False
    #: the inputs in which the caller passes outsider text (:func:`.untrusted.tainted_with`)
    taint: Mapping[str, Taint] = field(default_factory=dict)
    #: what the callers' ``if`` means for an outsider's run (:func:`.untrusted.job_condition`): it gates every
    #: called job
    condition: tuple[IfVerdict, ...] = ()


def uses_target(uses: str) -> tuple[str | None, str, str | None]:
    """``(owner/repo or None for local, path, ref)`` of a ``uses:`` value."""
    uses = uses.strip()
    if uses.startswith("./"):
        return None, posixpath.normpath(uses[2:]), None
    ref = None
    if "@" in uses:
        uses, ref = uses.split("@", 1)
    parts = uses.split("/")
    return "/".join(parts[:2]), "/".join(parts[2:]), ref
