"""AWS IAM ingestor (``--aws-iam FILE ...``): principals, policies, trust, and what roles reach.

Three parts (``shared/docs/style.md``), one module each:

``collect`` (:class:`AwsIamIngestor`, the :class:`~graphkit.ingestor.FileIngestor` loop) -- the only I/O
    Files as given; in directories every ``*.json``/``*.yaml``/``*.yml``
    (recursively) and extensionless ``iam-get-role/*`` outputs.
``parse`` (:func:`~ingest.aws_iam.parse.parse`) -- **pure, no I/O**
    Text -> :class:`~ingest.aws_iam.models.ParsedFile`: authorization
    details, ``get-role``, credential reports, policy documents, CloudFormation
    templates; raises :class:`~graphkit.ingestor.NotRecognised` for a
    document of another kind.
``to_graph`` (:func:`~ingest.aws_iam.to_graph.to_graph`) -- **pure, no I/O**
    Every parsed file at once (so role chains cross accounts): nodes
    (:class:`~graphkit.model.CloudRole`, ``CloudUser``, ``CloudGroup``,
    ``CloudPolicy``, ``OIDCProvider``, targets) and edges (structural
    ``has_policy``/``in_group``/``trusts_provider``; traversable role -> role
    ``assumes_role`` and the sensitive-action edges of
    :data:`~ingest.aws_iam.actions.SENSITIVE_ACTIONS`, listed with the target
    ids they build in :mod:`ingest.aws_iam.actions`).

Models: :mod:`ingest.aws_iam.models`.  Semantics (AWS IAM User Guide "Policy
evaluation logic",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)
are described in :mod:`ingest.aws_iam.to_graph`.  Job -> role edges (OIDC
trust) are added by :mod:`graphkit.cloud` after every ingestor ran.
"""

from __future__ import annotations

from pathlib import Path

from graphkit.registry import lazy_package
from graphkit.ingestor import RANK_CLOUD, Collected, FileIngestor, IngestResult, InputFile, InputOption

#: re-exported names -> their module, imported on first use (``graphkit --help`` reads the ingestor's option
#: without importing the IAM evaluator)
_EXPORTS = {
    "actions": ("SENSITIVE_ACTIONS", "ActionClass"),
    "models": ("ManagedPolicy", "ParsedFile", "PolicyFile", "Principal", "Provider"),
    "parse": ("parse",),
    "to_graph": ("META_KEY", "to_graph"),
}


__all__ = ["INGESTOR", "AwsIamIngestor", "id_path", "parse", "to_graph", "ParsedFile", "Principal", "ManagedPolicy",
           "PolicyFile", "Provider", "ActionClass", "SENSITIVE_ACTIONS", "META_KEY"]


class AwsIamIngestor(FileIngestor["ParsedFile"]):
    """The ``aws-iam`` ingestor (``--aws-iam FILE``)."""

    name = "aws-iam"
    description = "AWS IAM: get-account-authorization-details exports, get-role, credential reports, policy " \
                  "documents and CloudFormation templates"
    option = InputOption("FILE", "AWS IAM export(s): get-account-authorization-details JSON (one per account), "
                         "get-role, credential report, policy documents, CloudFormation templates; or a folder of "
                         "them. Repeatable.")
    merge_rank = RANK_CLOUD
    #: in folders: JSON/YAML documents and the extensionless outputs of ``aws iam get-role`` saved by name
    patterns = ("*.json", "*.yaml", "*.yml", "iam-get-role/*")
    nothing_found = ("no IAM documents found (get-account-authorization-details, get-role, policy or "
                     "CloudFormation JSON/YAML)")

    def parse(self, text: str, file: InputFile) -> "ParsedFile":
        """:func:`~ingest.aws_iam.parse.parse` (a document of another kind found in a folder is ignored); node ids
        of documents embed the path relative to the input root (:func:`id_path`), never the working directory."""
        from ingest.aws_iam.parse import parse
        return parse(text, file.name, id_path=id_path(file))

    def to_graph(self, parsed: list["ParsedFile"], collected: Collected) -> IngestResult:
        """:func:`~ingest.aws_iam.to_graph.to_graph` of every file at once (role chains cross accounts), with the
        files found in folders but ignored."""
        from ingest.aws_iam.to_graph import META_KEY, to_graph
        result = to_graph(parsed)
        result.meta[META_KEY]["ignored"] = collected.ignored
        return result


def id_path(file: InputFile) -> str:
    """The path node ids embed: ``ROOT_NAME/relative/path`` for a file found in a folder, the file name for a
    file given directly (the same ids from any working directory).

    >>> from pathlib import Path
    >>> id_path(InputFile(path=Path("/x/iam/trusts/ci.json"), name="../iam/trusts/ci.json", root=Path("/x/iam")))
    'iam/trusts/ci.json'
    >>> id_path(InputFile(path=Path("../a/ci.json"), name="../a/ci.json", root=Path("../a/ci.json")))
    'ci.json'
    """
    if file.root is None or file.root == file.path:
        return file.path.name
    try:
        rel = file.path.relative_to(file.root)
    except ValueError:
        return file.path.name
    return (Path(file.root.resolve().name) / rel).as_posix()


INGESTOR = AwsIamIngestor()


lazy_package(__name__, _EXPORTS)
