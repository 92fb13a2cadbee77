"""``graphkit synth``: write a synthetic organization (:mod:`graphkit.synth`) into a folder, refusing a folder of
someone else's files and a hostile ``.graphkit-synth.json`` (:class:`graphkit.synth.ManifestError`)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from graphkit.cli_common import fail, out
from graphkit.errors import GraphkitError
from graphkit.output import neutralise, term

__all__ = ["synth_cmd"]


def synth_cmd(
    repos: Annotated[int, typer.Option("--repos", min=1, help="Repositories (built edges grow a little faster "
                                       "than repositories: 135 ~ 10^4, 800 ~ 10^5, 5000 ~ 10^6).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Folder to write into: repos/, "
                                         "inventory.yaml, aws-iam.json.")],
    runners: Annotated[Optional[int], typer.Option("--runners", min=1, help="Runners (default: repos / 3, at "
                                                   "least 6).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same files).")] = 0,
    build_it: Annotated[bool, typer.Option("--build", help="Also build the graph in memory and print its size.")]
    = False,
    force: Annotated[bool, typer.Option("--force", help="Write into a folder holding files synth did not write "
                                        "(files of the same names are replaced).")] = False,
) -> None:
    """Write a deterministic synthetic organization in graphkit's input formats (for benchmarks)."""
    from graphkit import synth

    try:  # a manifest entry outside DIR (../x, /x, through a link) is refused before anything is deleted: CWE-22
        foreign = None if force else synth.foreign_entry(output)  # never a user's inventory.yaml replaced in silence
        if foreign is not None:
            what = "is not a folder" if foreign == "." else f"holds {neutralise(foreign)!r}, which synth did not write"
            raise typer.BadParameter(f"{neutralise(str(output))!r} {what}: give a new or empty folder, or --force",
                                     param_hint="--output")
        org = synth.generate(repos, runners, seed)
        written = synth.write(org, output)
    except synth.ManifestError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--output") from None
    except OSError as exc:
        fail(GraphkitError(f"{output}: {exc.strerror or exc}"))
    out.print(f"wrote {len(written)} files ({len(org.workflow_files())} workflows, {org.repos} repositories, "
              f"{org.runners} runners on {org.hosts} hosts) to {term(str(output))}", highlight=False)
    _limit_note(output / "inventory.yaml")
    if build_it:
        from graphkit.build import build_graph
        inputs = {"github-actions": [output / "repos"], "runners": [output / "inventory.yaml"],
                  "aws-iam": [output / "aws-iam.json"]}
        g = build_graph(inputs).graph
        out.print(f"built: {g.nx.number_of_nodes()} nodes, {g.nx.number_of_edges()} edges", highlight=False)


def _limit_note(path: Path) -> None:
    """Say so when the written inventory holds more YAML nodes than ``max_yaml_nodes`` (:mod:`graphkit.limits`:
    a build would refuse it), with the limit to build it with.  One C-level parse of the file (about 5,000
    repositories: 2 s)."""
    import yaml

    from graphkit import limits

    limit = limits.current().max_yaml_nodes
    count, todo = 0, [yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)]
    while todo:
        node = todo.pop()
        count += 1
        if isinstance(node, yaml.MappingNode):
            todo += [x for pair in node.value for x in pair]
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
    if count > limit:
        out.print(f"note: {path.name} holds {count} YAML nodes, more than max_yaml_nodes={limit}: build with "
                  f"`graphkit --limit max_yaml_nodes={count} build ...` or GRAPHKIT_LIMIT_MAX_YAML_NODES={count}",
                  highlight=False)
