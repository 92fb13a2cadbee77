"""Step rules: what a step gives its job (cloud roles, signing keys, publish/deploy targets, caches).

Every rule is a :class:`~.base.StepRule` declared in the module of its
capability and listed once in :data:`RULES`; the contract (what a rule
receives and may add) is in :mod:`.base`.  For each step of each job
instance the builder calls :func:`apply_step_rules`: the script rules on a
``run:`` step, then the one action rule of a ``uses:`` step (exact action
name first, then the longest matching prefix).

====================  ========================================================
module                capability
====================  ========================================================
:mod:`.cloud`         cloud authentication (AWS, Cognito, GCP, Azure)
:mod:`.signing`       GPG key import, keyless sigstore signing and attestations
:mod:`.publish`       PyPI, registries (login, build-push), S3 and GCS uploads
:mod:`.caches`        actions/cache, rust-cache, setup-* cache flags
:mod:`.run_scripts`   cosign/gpg and publish/deploy commands in run scripts
====================  ========================================================

Each rule has fixture tests in ``tests/fixtures/github-actions/steps/<rule name>/``
(``tests/test_gha_steps.py`` checks that none is missing).
"""

from __future__ import annotations

from . import caches, cloud, publish, run_scripts, signing
from .base import JobState, StepRule, StepView, action_name

__all__ = [
    "ACTION_RULES", "RULES", "SCRIPT_RULES", "JobState", "StepRule", "StepView", "action_name",
    "apply_step_rules", "rule_for",
]

#: Every step rule, in the order they apply to a step.
RULES: tuple[StepRule, ...] = (
    run_scripts.SIGNING_COMMANDS,
    run_scripts.PUBLISH_COMMANDS,
    run_scripts.REGISTRATION_COMMANDS,
    cloud.CLOUD_AUTH,
    signing.GPG_IMPORT,
    signing.KEYLESS_ATTEST,
    publish.PYPI_PUBLISH,
    publish.DOCKER_LOGIN,
    publish.BUILD_PUSH,
    publish.S3_UPLOAD,
    publish.GCS_UPLOAD,
    caches.ACTIONS_CACHE,
    caches.RUST_CACHE,
    caches.SETUP_CACHE,
)

#: Rules that read run scripts.
SCRIPT_RULES: tuple[StepRule, ...] = tuple(r for r in RULES if r.scripts)
#: Action name -> the rule that handles it.
ACTION_RULES: dict[str, StepRule] = {a: r for r in RULES for a in r.actions}
_PREFIX_RULES = sorted(((p, r) for r in RULES for p in r.prefixes), key=lambda pr: -len(pr[0]))


def rule_for(action: str) -> StepRule | None:
    """The rule that handles ``action`` (an :func:`action_name`), or None.

    >>> rule_for("actions/setup-python").name, rule_for("actions/cache/save").name, rule_for("actions/checkout")
    ('setup-cache', 'actions-cache', None)
    """
    rule = ACTION_RULES.get(action)
    if rule is None:
        rule = next((r for p, r in _PREFIX_RULES if action.startswith(p)), None)
    return rule


def apply_step_rules(view: StepView) -> None:
    """Apply the script rules (a ``run:`` step) and the action rule (a ``uses:`` step) to one step.

    Raises
    ------
    graphkit.model.ids.IdError
        when a rule cannot build an id from the step's values (the caller
        drops ``view.out`` and reports the step).
    """
    if view.step.run:
        for rule in SCRIPT_RULES:
            rule.apply(view)
    action = view.action
    rule = rule_for(action) if action else None
    if rule is not None:
        rule.apply(view)
