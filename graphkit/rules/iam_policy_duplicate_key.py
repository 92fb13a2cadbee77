"""Rule ``iam-policy-duplicate-key``: a JSON object of an IAM document holds the same key twice.

RFC 8259 §4 (https://www.rfc-editor.org/rfc/rfc8259#section-4): names within an object SHOULD be unique; when they
are not, behaviour is unpredictable -- most parsers (Python's ``json``, graphkit's, many policy linters) silently keep
the last value, so what a reviewer reads, what a tool checks and what AWS enforces may differ (two ``Condition``
operator blocks, two ``Effect``, two ``Statement`` lists).
"""

from graphkit.findings import Severity, rule
from graphkit.model import CloudGroup, CloudPolicy, CloudRole, CloudUser, Evidence


def _subject(graph, file, place):
    """The principal or policy node whose evidence is the innermost entry holding ``place`` in ``file``."""
    best, depth = "", -1
    for node in graph.nodes():
        if not isinstance(node, (CloudRole, CloudUser, CloudGroup, CloudPolicy)):
            continue
        for ev in node.evidence:
            path = ev.yaml_path or ""
            if ev.file == file and (place == path or place.startswith(path + ".") or place.startswith(path + "[")
                                    or not path) and len(path) > depth:
                best, depth = node.id, len(path)
    return best


@rule("iam-policy-duplicate-key", title="IAM document with a duplicate JSON key",
      description="An object of an IAM policy document (or export) holds the same key twice: most parsers silently "
      "keep the last value, so a condition or statement a reviewer sees may not be the one that applies; graphkit "
      "reads such a trust policy as unknown and an identity policy under each value (grants possible).",
      help_uri="https://www.rfc-editor.org/rfc/rfc8259#section-4",
      severity=Severity.MEDIUM,
      remediation="Merge the duplicated keys into one (e.g. one StringEquals block with every key), then check the "
      "policy AWS stores (aws iam get-role / get-policy-version) is the one intended.")
def check(graph, options):
    """One finding per ``{file, place, key}`` of ``graph.meta.aws_iam.duplicate_keys``."""
    summary = graph.meta.aws_iam
    for d in summary.duplicate_keys if summary else []:
        where = f"{d['place']}.{d['key']}" if d["place"] else d["key"]
        yield check.finding(d["file"], d["place"], d["key"], subject=_subject(graph, d["file"], d["place"]),
                            message=f"{d['file']}: key {d['key']!r} appears twice at {d['place'] or 'top level'} "
                            "(which value applies is unknown: a trust policy holding it is unknown, an identity "
                            "policy's grants only possible)",
                            evidence=[Evidence(file=d["file"], yaml_path=where, line=d.get("line"))], key=d["key"],
                            place=d["place"])
