"""The graph model, declared once.

Node kinds are pydantic classes (:mod:`graphkit.model.nodes`, each with its
:class:`~graphkit.model.node.NodeSpec`), their ids are declared with them
(:mod:`graphkit.model.ids`: one typed constructor and one parser per id form),
and edge kinds are the entries of :data:`EDGE_SPECS`
(:mod:`graphkit.model.edges`).  Everything else -- networkx attributes, the
JSON file format and its JSON Schema, Neo4j labels and statements, the Cypher
library, exports and the schema tables in the README -- is derived from these
declarations; nothing else in graphkit may name a label, a relationship type
or an id format by hand.

Semantics (what an edge *means*) follow ``shared/docs/semantics.md``: an edge
``A -> B`` is **traversable** when an attacker who controls ``A`` can obtain,
act as, or tamper with ``B``.  Edges that only record facts (a repository
*has* a workflow) are declared ``traversable=False``.
"""

from graphkit.model import ids
from graphkit.model.edges import EDGE_SPECS, Edge, EdgeSpec
from graphkit.model.enums import (CRITICALITY_WEIGHT, LIFETIME_SECONDS, REVOCATION_SPECS, Confidence, Criticality,
                                  EdgeKind, Lifetime, NodeKind, RevocationAction, RevocationSpec, lifetime_seconds)
from graphkit.model.evidence import Evidence, merge_evidence
from graphkit.model.gitlab import (GitLabEnvironment, GitLabIdToken, GitLabJob, GitLabSecret, GitLabTrigger,
                                   GitLabVariable)
from graphkit.model.ids import repo_key, secret_key
from graphkit.model.k8s import KubeSecret, KubeServiceAccount, RunnerPods
from graphkit.model.node import MergeRule, Node, NodeSpec
from graphkit.model.observed import ObservedRun, RunnerEvent
from graphkit.model.nodes import (NODE_ADAPTER, NODE_ID_FORMATS, NODE_TYPES, AnyNode, BranchPolicy, Cache,
                                  CloudAccount, CloudGroup, CloudPolicy, CloudRole, CloudSecret, CloudUser, Credential,
                                  DeploymentTarget, GitHubToken, Host, IfVerdict, Job, LiteralCredential, OIDCIdentity,
                                  OIDCProvider, Organization, Repository,
                                  Runner, RunnerGroup, RunnerRegistration, RunsOnCandidate, Secret, SecretGrant,
                                  SecretRef, SigningKey, Trigger, UntrustedActor, UntrustedCode, Workflow,
                                  node_kind)

__all__ = [
    "KubeSecret", "KubeServiceAccount", "RunnerPods",
    "ids", "Confidence", "Criticality", "CRITICALITY_WEIGHT", "Lifetime", "LIFETIME_SECONDS", "lifetime_seconds",
    "RevocationAction", "RevocationSpec", "REVOCATION_SPECS", "Evidence", "merge_evidence", "Node", "NodeSpec",
    "MergeRule", "NodeKind", "NODE_TYPES", "NODE_ID_FORMATS", "NODE_ADAPTER", "AnyNode", "EdgeKind", "EdgeSpec",
    "EDGE_SPECS", "Edge", "node_kind", "repo_key", "secret_key",
    "Host", "LiteralCredential", "RunnerRegistration", "Runner", "RunnerGroup", "Organization", "Repository", "Workflow",
    "RunsOnCandidate", "Trigger", "SecretRef", "SecretGrant", "Job", "Secret", "GitHubToken", "OIDCIdentity",
    "CloudRole",
    "SigningKey", "BranchPolicy", "DeploymentTarget", "Cache", "Credential", "CloudUser", "CloudGroup",
    "CloudPolicy",
    "OIDCProvider", "CloudAccount", "CloudSecret", "UntrustedActor", "UntrustedCode", "IfVerdict",
    "GitLabJob", "GitLabTrigger", "GitLabEnvironment", "GitLabVariable", "GitLabSecret", "GitLabIdToken",
    "OIDCProvider", "CloudAccount", "CloudSecret", "UntrustedActor", "UntrustedCode", "ObservedRun", "RunnerEvent",
]
