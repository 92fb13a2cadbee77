"""GitLab CI/CD configuration of project checkouts -> graphkit nodes and edges (the ``gitlab-ci`` source).

Read it in this order (``shared/docs/style.md``: collect, parse, to_graph):

=======================  =====================================================================
module                   what it does
=======================  =====================================================================
:mod:`.collect`          the only I/O: checkouts, their ``.gitlab-ci.yml`` and the local files
                         it includes
:mod:`.models`           what parsing one file produces (:class:`CIFile`, :class:`Include`...)
:mod:`.parse`            YAML text -> :class:`CIFile` (pure; ``!reference``, ``spec:`` header)
:mod:`.merge`            one pipeline merged as GitLab merges it: includes, ``!reference``,
                         ``extends``, ``default:``, ``inherit:``; hidden jobs are templates
:mod:`.expressions`      ``rules:if`` expressions in three values
:mod:`.shapes`           the documented shapes of ``rules``, ``when``, ``only`` / ``except``,
                         ``workflow``: each wrong shape a problem, the conditions unknown
:mod:`.conditions`       ``workflow:rules`` / ``rules`` / ``only`` / ``except`` -> the pipelines
                         (ref type, sources, protected, fork, refs) a job runs in
:mod:`.jobs`             a merged job -> :class:`graphkit.model.GitLabJob` (the routing contract)
:mod:`.graph`            projects, pipelines, jobs, external secrets, OIDC identities,
                         environments -> nodes and edges (pure)
=======================  =====================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphkit.errors import InputError
from graphkit.ingestor import Collected, FileIngestor, IngestResult, InputFile, InputOption

from graphkit.registry import lazy_package

if TYPE_CHECKING:
    from .models import CIFile

#: re-exported names -> their module, imported on first use (``graphkit --help`` reads the ingestor's option
#: without importing the parser)
_EXPORTS = {
    "collect": ("Checkout", "checkout_inputs", "find_checkouts", "local_targets"),
    "conditions": ("Conditions", "reduce_triggers"),
    "graph": ("oidc_subjects", "to_graph"),
    "merge": ("assemble", "deep_merge"),
    "models": ("CIFile", "Include", "Project", "Reference"),
    "parse": ("parse_config",),
}

__all__ = ["INGESTOR", "CIFile", "Checkout", "Conditions", "GitLabCIIngestor", "Include", "Project", "Reference",
           "assemble", "deep_merge", "find_checkouts", "local_targets", "oidc_subjects", "parse_config",
           "reduce_triggers", "to_graph"]


class GitLabCIIngestor(FileIngestor["CIFile"]):
    """The ``gitlab-ci`` ingestor: every checkout's ``.gitlab-ci.yml`` and the local files it includes."""

    name = "gitlab-ci"
    description = "GitLab CI/CD configuration (.gitlab-ci.yml and local includes) of project checkouts"
    option = InputOption("DIR", "GitLab project checkout(s): DIR, GROUP/PROJECT=DIR, https://HOST/GROUP/PROJECT=DIR, "
                         "or a folder of group__project checkouts. Repeatable.")

    def collect(self, paths: Sequence[Path | str]) -> Collected:
        """The pipeline files of every checkout (:func:`~.collect.checkout_inputs`); ``context``: the project."""
        from .collect import checkout_inputs, find_checkouts
        checkouts, problems = find_checkouts(paths)
        files: list[InputFile] = []
        for co in checkouts:
            found, probs = checkout_inputs(co)
            files += found
            problems += probs
        return Collected(files=files, problems=problems)

    def parse(self, text: str, file: InputFile) -> CIFile:
        """:func:`~.parse.parse_config`; skipped places keep the file's full path."""
        from ingest._credentials import literal_credentials, redact_values

        from .parse import parse_config
        f = parse_config(text, file=file.name, project=file.context)
        f.literal_credentials, f.literal_values = literal_credentials(text, file.name, f.project.path, f.lines)
        f.problems = [InputError(str(file.path), redact_values(p.place, f.literal_values),
                                 redact_values(p.reason, f.literal_values)) for p in f.problems]
        f.location = str(file.path)
        return f

    def to_graph(self, parsed: list[CIFile], collected: Collected) -> IngestResult:
        """:func:`~.graph.to_graph` of every project; credentials written in a file are kept on its project
        (kind, place, fingerprint: finding ``literal-credential-in-workflow``) and their values are removed from
        every node, edge and problem (:func:`ingest._credentials.scrub`)."""
        from graphkit.model import Repository, ids
        from ingest._credentials import redact_values, scrub

        from .graph import to_graph
        result = to_graph(parsed)
        for f in parsed:
            if f.literal_credentials:
                ev = f.literal_credentials[0].evidence
                result.graph.node(Repository(id=ids.gitlab_project(f.project.path), name=f.project.path,
                                             full_name=f.project.path, platform="gitlab",
                                             literal_credentials=list(f.literal_credentials), evidence=[ev]))
        values = [v for f in parsed for v in f.literal_values]
        if not values:
            return result
        problems = [InputError(p.file, redact_values(p.place, values), redact_values(p.reason, values))
                    for p in result.problems]
        return dataclasses.replace(result, graph=scrub(result.graph, values), problems=problems)


#: The registered ingestor (entry point ``gitlab-ci``).
INGESTOR = GitLabCIIngestor()


lazy_package(__name__, _EXPORTS)
