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
:mod:`.conditions`       ``workflow:rules`` / ``rules`` / ``only`` / ``except`` -> the pipelines
                         (ref type, sources, protected, fork, refs) a job runs in
:mod:`.jobs`             a merged job -> :class:`graphkit.model.GitLabJob` (the routing contract)
:mod:`.graph`            projects, pipelines, jobs, external secrets, OIDC identities,
                         environments -> nodes and edges (pure)
=======================  =====================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphkit.errors import InputError
from graphkit.ingestor import Collected, FileIngestor, IngestResult, InputFile, InputOption

from .collect import Checkout, checkout_inputs, find_checkouts, local_targets
from .conditions import Conditions, reduce_triggers
from .graph import oidc_subjects, to_graph
from .merge import assemble, deep_merge
from .models import CIFile, Include, Project, Reference
from .parse import parse_config

__all__ = ["INGESTOR", "CIFile", "Checkout", "Conditions", "GitLabCIIngestor", "Include", "Project", "Reference",
           "assemble", "deep_merge", "find_checkouts", "local_targets", "oidc_subjects", "parse_config",
           "reduce_triggers", "to_graph"]


class GitLabCIIngestor(FileIngestor[CIFile]):
    """The ``gitlab-ci`` ingestor: every checkout's ``.gitlab-ci.yml`` and the local files it includes."""

    name = "gitlab-ci"
    description = "GitLab CI/CD configuration (.gitlab-ci.yml and local includes) of project checkouts"
    option = InputOption("DIR", "GitLab project checkout(s): DIR, GROUP/PROJECT=DIR, https://HOST/GROUP/PROJECT=DIR, "
                         "or a folder of group__project checkouts. Repeatable.")

    def collect(self, paths: Sequence[Path | str]) -> Collected:
        """The pipeline files of every checkout (:func:`~.collect.checkout_inputs`); ``context``: the project."""
        checkouts, problems = find_checkouts(paths)
        files: list[InputFile] = []
        for co in checkouts:
            found, probs = checkout_inputs(co)
            files += found
            problems += probs
        return Collected(files=files, problems=problems)

    def parse(self, text: str, file: InputFile) -> CIFile:
        """:func:`~.parse.parse_config`; skipped places keep the file's full path."""
        f = parse_config(text, file=file.name, project=file.context)
        f.problems = [InputError(str(file.path), p.place, p.reason) for p in f.problems]
        f.location = str(file.path)
        return f

    def to_graph(self, parsed: list[CIFile], collected: Collected) -> IngestResult:
        """:func:`~.graph.to_graph` of every project."""
        return to_graph(parsed)


#: The registered ingestor (entry point ``gitlab-ci``).
INGESTOR = GitLabCIIngestor()
