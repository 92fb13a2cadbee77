"""GitHub Actions checkouts -> graphkit nodes and edges (the ``github-actions`` source).

Read it in this order (``shared/docs/style.md``: collect, parse, to_graph):

=======================  =====================================================================
module                   what it does
=======================  =====================================================================
:mod:`.collect`          the only I/O: find checkouts and their workflow/action files
:mod:`.models`           what parsing produces (:class:`WorkflowFile`, :class:`ActionFile`...)
:mod:`.parse`            YAML text -> models (pure; :class:`~graphkit.errors.InputError` with
                         file and place, malformed jobs/steps skipped as problems)
:mod:`.expressions`      the ``${{ }}`` evaluator (:func:`evaluate`, :func:`resolve`...)
:mod:`.matrix`           matrix expansion and ``runs-on`` label sets
:mod:`.permissions`      GITHUB_TOKEN permission blocks and the levels a job gets
:mod:`.secrets`          which secrets a job reads, through reusable-workflow calls
:mod:`.graph`            models -> nodes and edges: workflows, jobs, tokens, OIDC,
                         environments, reusable calls, composite actions (pure)
:mod:`.steps`            the step rules (cloud auth, signing, publishing, caches, run
                         scripts) behind one explicit registry, :data:`.steps.RULES`
=======================  =====================================================================

Id conventions (all built by :mod:`graphkit.model.ids`): a cloud role named by
an expression that cannot be evaluated statically gets ``pattern=True`` and an
identifier keeping the literal parts with ``*`` for each expression
(``arn:aws:iam::*:role/deploy``), or ``expr:{owner}/{repo}:{expression}`` when
nothing is literal; a role known only through static keys is
``key:{owner}/{repo}:{SECRET}``.  Signing keys, targets and caches: see
:mod:`.steps.signing`, :mod:`.steps.publish`, :mod:`.steps.caches`;
environments are ``target:environment:{owner}/{repo}:{env}`` (lower-case:
GitHub environment names are case-insensitive).  Production and criticality
of targets are decided once for every source by :mod:`graphkit.targets`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphkit import limits
from graphkit.registry import lazy_package
from graphkit.errors import InputError
from graphkit.ingestor import Collected, FileIngestor, IngestResult, InputFile, InputOption

#: re-exported names -> their module, imported on first use (``graphkit --help`` reads the ingestor's option
#: without importing the parser)
_EXPORTS = {
    "collect": ("Checkout", "checkout_files", "find_checkouts"),
    "evidence": ("literal_credentials", "scrub"),
    "expressions": ("EvalContext", "Val", "evaluate", "resolve", "run_outputs", "scan_secrets", "substitute_inputs"),
    "graph": ("MAX_COMPOSITE_DEPTH", "MAX_WORKFLOW_LEVELS", "to_graph"),
    "matrix": ("expand_matrix", "runs_on_candidates"),
    "models": ("ActionFile", "JobDef", "Step", "WorkflowFile"),
    "parse": ("parse_action", "parse_workflow"),
    "permissions": ("PERMISSION_SCOPES", "effective_permissions", "parse_permissions"),
}

if TYPE_CHECKING:
    from .models import ActionFile, WorkflowFile


__all__ = [
    "INGESTOR", "MAX_COMPOSITE_DEPTH", "MAX_WORKFLOW_LEVELS", "PERMISSION_SCOPES", "ActionFile", "Checkout",
    "EvalContext", "GitHubActionsIngestor", "JobDef", "Step", "Val", "WorkflowFile", "checkout_files",
    "effective_permissions", "evaluate", "expand_matrix", "find_checkouts", "parse_action", "parse_permissions",
    "parse_workflow", "resolve", "run_outputs", "runs_on_candidates", "scan_secrets", "substitute_inputs",
    "to_graph",
]


class GitHubActionsIngestor(FileIngestor["WorkflowFile | ActionFile"]):
    """The ``github-actions`` ingestor: the workflow and action files of :func:`find_checkouts`."""

    name = "github-actions"
    description = "GitHub Actions workflows and local actions of repository checkouts"
    option = InputOption("DIR", "Repository checkout(s): DIR, OWNER/NAME=DIR, or a folder of owner__name "
                         "checkouts. Repeatable.")

    def collect(self, paths: Sequence[Path | str]) -> Collected:
        """Every workflow and action file of every checkout; ``context`` = ``(repository, "workflow"|"action")``."""
        from .collect import checkouts_and_files
        checkouts, problems = checkouts_and_files(paths)
        files: list[InputFile] = []
        cap = limits.current().max_files_per_checkout
        for co, found in checkouts:
            if len(found) > cap:  # refused before any is read
                problems.append(InputError(str(co.root), "", limits.too_many(
                    "max_files_per_checkout", cap, f"{len(found)} workflow and action files")))
                continue
            files += [InputFile(path=co.root / rel, name=rel, root=co.root, context=(co.repository, kind))
                      for rel, kind in found]
        return Collected(files=files, problems=problems)

    def parse(self, text: str, file: InputFile) -> WorkflowFile | ActionFile:
        """:func:`parse_workflow` or :func:`parse_action`; skipped parts keep the file's full path (reported by
        :meth:`to_graph`)."""
        from .evidence import literal_credentials
        from .parse import parse_action, parse_workflow
        repository, kind = file.context
        f = (parse_workflow if kind == "workflow" else parse_action)(text, file=file.name, repository=repository)
        creds, values = literal_credentials(text, file.name, repository, f.lines)
        if creds:
            f = f.model_copy(update={"literal_credentials": creds, "literal_values": values})
        if f.problems:
            f = f.model_copy(update={"problems": tuple(InputError(str(file.path), p.place, p.reason)
                                                       for p in f.problems)})
        return f

    def problems_of(self, parsed: WorkflowFile | ActionFile) -> Sequence[InputError]:
        """None here: :func:`to_graph` reports the skipped parts of every file."""
        return ()

    def to_graph(self, parsed: list[WorkflowFile | ActionFile], collected: Collected) -> IngestResult:
        """:func:`to_graph` of every parsed file, with a repository node for every checkout."""
        from .evidence import forget_details, scrub
        from .graph import to_graph
        try:
            result = to_graph(parsed, repositories=list(dict.fromkeys(f.context[0] for f in collected.files)),
                              named={(f.context[0], f.name): str(f.path) for f in collected.files})
        finally:
            forget_details()  # the details remembered while parsing and building
        values = [v for f in parsed for v in f.literal_values]
        return result if not values else dataclasses.replace(result, graph=scrub(result.graph, values))


#: The registered ingestor (entry point ``github-actions``).
INGESTOR = GitHubActionsIngestor()


lazy_package(__name__, _EXPORTS)
