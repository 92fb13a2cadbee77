"""Which deployment targets are production, and how critical a target is: one rule for every source.

Sources state ``DeploymentTarget.production`` only when they know it (an
inventory's ``production: true``); :func:`classify_targets` runs once on the
merged graph (:func:`graphkit.build.build_graph`, before resolving) and fills
in what nobody stated from the name, then sets criticality: production
deployments and package publishing are ``critical`` (the README's weights:
signing keys, production deployments, package publishing and cloud admin
weigh most).  Because it runs after merging, a guess never competes with a
stated value, whichever source came first.
"""

from __future__ import annotations

import re

from graphkit.graph import Graph
from graphkit.model import CRITICALITY_WEIGHT, Criticality, DeploymentTarget, NodeKind, ids

__all__ = ["looks_production", "NAMED_TARGET_TYPES", "target_criticality", "classify_targets"]

_PROD = re.compile(r"(?:^|[^a-z])(prod\w*|prd|release\w*|publish\w*|pypi|live)(?:[^a-z]|$)", re.I)
_NONPROD = re.compile(r"(?:^|[^a-z])(dev|development|test|testing|staging|stage|qa|preview|sandbox|ci)"
                      r"(?:[^a-z]|$)", re.I)

#: Target types whose identifier ends with a name an operator chose (an environment, a cluster, a function, a
#: stack): the name says whether it is production.  Registries, package indexes and buckets are named by host.
NAMED_TARGET_TYPES = frozenset({"environment", "cluster", "function", "other"})


def looks_production(name: str) -> bool | None:
    """Guess from a name whether it is production.

    True for ``prod``, ``production``, ``prd``, ``release``, ``publish``,
    ``pypi``, ``live`` (as words, e.g. ``prod-eu``); False for ``dev``,
    ``test``, ``staging``, ``qa``, ``preview``, ``sandbox``, ``ci``...; None
    when the name says nothing.

    >>> [looks_production(n) for n in ("Production", "prod-eu", "pypi", "publish", "prd", "staging", "docs")]
    [True, True, True, True, True, False, None]
    """
    if _PROD.search(name):
        return True
    if _NONPROD.search(name):
        return False
    return None


def _name(target: DeploymentTarget) -> str:
    if target.target_type == "environment":
        try:
            return ids.parse(target.id).parts.get("environment", target.identifier)
        except ids.IdError:
            return target.identifier
    return target.identifier.rsplit(":", 1)[-1]


def target_criticality(target_type: str, production: bool | None) -> Criticality:
    """``critical`` for a production target or a package index (publishing), else the kind's default.

    >>> target_criticality("package_index", None).value, target_criticality("environment", False).value
    ('critical', 'high')
    """
    if production or target_type == "package_index":
        return Criticality.CRITICAL
    return DeploymentTarget.spec.default_criticality


def classify_targets(graph: Graph) -> None:
    """Fill in ``production`` where no source stated it (:func:`looks_production` of the target's name, for
    :data:`NAMED_TARGET_TYPES`), then raise each target's criticality to :func:`target_criticality`.

    Idempotent; changes ``graph`` in place.
    """
    for node in list(graph.nodes(NodeKind.DEPLOYMENT_TARGET)):
        assert isinstance(node, DeploymentTarget)
        production = node.production
        if production is None and node.target_type in NAMED_TARGET_TYPES:
            production = looks_production(_name(node))
        crit = max(node.criticality, target_criticality(node.target_type, production),
                   key=lambda c: CRITICALITY_WEIGHT[c])
        if (production, crit) != (node.production, node.criticality):
            graph.replace_node(node.model_copy(update={"production": production, "criticality": crit}))
