"""The step-rule contract: what a rule receives (:class:`StepView`), what it may add, and how it is declared.

A rule is a function ``apply(view) -> None`` declared by a :class:`StepRule`
(the actions it handles, or ``scripts=True`` for run scripts) and listed in
:data:`ingest.github_actions.steps.RULES`.  It receives one step of one job
instance and may only:

- add nodes and edges through ``view.out`` (a :class:`~graphkit.graph.GraphBuilder`
  for this step alone; the builder merges it into the graph when the rule
  returns, or drops it when an id cannot be built: :class:`~graphkit.model.ids.IdError`
  becomes a problem naming the step).  Ids come from :mod:`graphkit.model.ids`;
  edges usually start at the job (``view.job.id``) or its OIDC identity
  (``view.job.oidc_id``, set when the job has ``id-token: write``);
- grant secrets to an edge target with ``view.job.grant(names, kind, target, evidence)``
  (names as the step reads them; the job's :class:`~ingest.github_actions.secrets.SecretMap`
  maps them to the holding repository's names);
- record a registry logged in to (``view.job.registries``), which later
  ``docker/build-push-action`` steps of the same job push to.

It must not read files, guess production (``graphkit.targets`` does) or
store secret values.  Arguments are read with :meth:`StepView.arg` (composite
inputs substituted), evaluated with :meth:`StepView.value`, and evidence made
with :meth:`StepView.ev`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from graphkit.graph import GraphBuilder
from graphkit.model import DeploymentTarget, EdgeKind, Evidence, Lifetime, SecretGrant, UntrustedCode, ids, repo_key

from ..evidence import Src
from ..expressions import EvalContext, expressions, resolve, scan_secrets, substitute_inputs, truthy
from ..models import Step, scalar_text
from ..secrets import SecretMap

__all__ = ["JobState", "StepRule", "StepView", "action_name", "add_target"]


def action_name(uses: str) -> str:
    """``owner/repo[/path]`` of a ``uses:`` value, lower-case, without ``@ref``.

    >>> action_name("Docker/Login-Action@v3")
    'docker/login-action'
    """
    return uses.split("@", 1)[0].strip().lower().rstrip("/")


@dataclass
class JobState:
    """What the step rules of one job instance share and accumulate.

    ``id``: the job id; ``repo``: the repository whose secrets the job reads
    (display name; the triggering workflow's); ``oidc_id``: its OIDC identity
    node, if it can mint tokens; ``identity``: the keyless signing identity
    (``github.com/{owner}/{repo}/{path of the workflow defining the job}``);
    ``env``: workflow and job ``env``.
    """

    id: str
    repo: str
    oidc_id: str | None
    identity: str
    secrets: SecretMap
    env: dict[str, Any] = field(default_factory=dict)
    grants: list[SecretGrant] = field(default_factory=list)
    checkouts: dict[str, str] = field(default_factory=dict)  # checkout path -> repo key
    registries: list[str] = field(default_factory=list)
    #: the steps of the composite actions the job uses that run pull request code (:mod:`..untrusted`)
    untrusted: list[UntrustedCode] = field(default_factory=list)

    @property
    def rk(self) -> str:
        """The secrets repository as ids write it (lower-case ``owner/name``)."""
        return repo_key(self.repo)

    def mapped(self, names: Iterable[str]) -> list[str]:
        """Secret names as the holding repository knows them (see :class:`SecretMap`)."""
        return list(dict.fromkeys(m for n in names for m in self.secrets.map(n)[0]))

    def grant(self, secret_names: Iterable[str], kind: EdgeKind, target: str, ev: Evidence) -> None:
        """Record that the secrets ``secret_names`` give the job the ``kind`` edge to ``target``."""
        for name in self.mapped(secret_names):
            g = SecretGrant(name=name, edge_kind=kind, target=target, evidence=ev, possible=self.secrets.possible)
            if g not in self.grants:
                self.grants.append(g)


@dataclass
class StepView:
    """A step as a rule sees it: arguments after composite-input substitution (``subst``), and where to write.

    ``src``: the file the step is in (a workflow or an ``action.yml``);
    ``ctx``: what its expressions can read; ``out``: where the rule adds nodes
    and edges.
    """

    step: Step
    src: Src
    ctx: EvalContext
    job: JobState
    out: GraphBuilder = field(default_factory=GraphBuilder)
    subst: dict[str, str] = field(default_factory=dict)

    @property
    def action(self) -> str | None:
        """:func:`action_name` of ``uses`` (None for a run step or a ``docker://`` image)."""
        uses = self.step.uses
        return None if not uses or uses.startswith("docker://") else action_name(uses)

    @property
    def run(self) -> str:
        """The run script (composite inputs substituted; ``""`` for an action step)."""
        return substitute_inputs(self.step.run or "", self.subst)

    def arg(self, *names: str) -> str | None:
        """The first ``with:`` argument of ``names`` that is set, as text."""
        for n in names:
            if n in self.step.with_args and self.step.with_args[n] is not None:
                return substitute_inputs(scalar_text(self.step.with_args[n]), self.subst)
        return None

    def ev(self, sub: str = "", detail: Any = None) -> Evidence:
        """Evidence at the step (``sub``: a path under it, e.g. ``with.password``)."""
        return self.src.ev(self.step.path + (("." + sub) if sub else ""), detail)

    def secrets_in(self, text: str | None) -> list[str]:
        """Secret names the expressions of ``text`` read."""
        names: list[str] = []
        for e in expressions(text or ""):
            names += scan_secrets(e)[0]
        return list(dict.fromkeys(names))

    def env_secrets(self, var_filter: Callable[[str], bool] = lambda _: True) -> list[str]:
        """Secret names read by the job and step ``env`` variables whose name passes ``var_filter``."""
        env = {**self.job.env, **self.step.env}
        return list(dict.fromkeys(n for k, v in env.items() if var_filter(k)
                                  for n in self.secrets_in(substitute_inputs(scalar_text(v), self.subst))))

    def value(self, text: str | None) -> tuple[list[str], str | None, bool]:
        """``(truthy literal values, pattern, certain)`` of an argument (see :func:`~..expressions.resolve`)."""
        if text is None:
            return [], None, True
        vals, pattern = resolve(text, self.ctx)
        return [scalar_text(v.value) for v in vals if truthy(v.value)], pattern, all(v.certain for v in vals)

    def from_job(self, kind: EdgeKind, target: str, ev: Evidence, *, possible: bool = False,
                 props: dict[str, Any] | None = None, lifetime: Lifetime | None = None) -> None:
        """Add the edge ``job -kind-> target`` (``lifetime`` None: the kind's)."""
        self.out.edge(kind, self.job.id, target, ev, possible=possible, props=props, lifetime=lifetime)


def add_target(view: StepView, target_type: str, identifier: str, ev: Evidence) -> str:
    """Add a :class:`DeploymentTarget` (not an environment) and return its id.

    Production and criticality are not guessed here (:mod:`graphkit.targets`).

    Raises
    ------
    ids.IdError
        when ``identifier`` cannot be part of an id.
    """
    return view.out.node(DeploymentTarget(id=ids.target(target_type, identifier), name=identifier,
                                          target_type=target_type, identifier=identifier, evidence=[ev]))


@dataclass(frozen=True)
class StepRule:
    """One step capability: what it recognises and the function that adds its nodes, edges and grants.

    ``name``: a stable id (``cloud-auth``), also the fixture folder
    ``tests/fixtures/github-actions/steps/<name>/``.  ``actions``: the action
    names it handles (:func:`action_name` form); ``prefixes``: action name
    prefixes it handles when no rule names the action (``actions/setup-``);
    ``scripts``: it reads every run script instead.  ``summary``: one line for
    the documentation.
    """

    name: str
    apply: Callable[[StepView], None]
    summary: str
    actions: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    scripts: bool = False
