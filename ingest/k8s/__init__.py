"""Kubernetes and Actions Runner Controller ingestor (``--k8s DIR_OR_FILE``, issue 15).

Reads manifests and rendered Helm output (multi-document YAML streams, ``kind: List``), ARC
gha-runner-scale-set values files, kubeconfigs and cluster descriptors, one cluster per input path
(:mod:`ingest.k8s.to_graph`).  What is read: :mod:`ingest.k8s.parse` (documents, RBAC, ``aws-auth``,
ServiceAccounts, Secrets by key name only) and :mod:`ingest.k8s.pods` (ARC pools and pod templates); RBAC:
:mod:`ingest.k8s.rbac`.  Cross-source semantics (jobs routed to scale sets, IRSA trust, ``aws-auth`` roles with a
path): :mod:`graphkit.resolve.k8s`.

Cluster descriptor (optional, one per input path)::

    schema: graphkit.k8s-cluster/v1
    name: prod-eu
    server: https://prod-eu.k8s.example:6443   # the API server URL kubeconfigs name
    production: true
    oidc_issuer: https://oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE   # EKS: for IRSA trust evaluation

or the JSON that ``aws eks describe-cluster --name NAME`` prints.
"""

from __future__ import annotations

from graphkit.ingestor import RANK_CLOUD, Collected, FileIngestor, IngestResult, InputFile, InputOption
from ingest.k8s.parse import CLUSTER_SCHEMA, ParsedK8s, parse
from ingest.k8s.to_graph import to_graph

__all__ = ["INGESTOR", "CLUSTER_SCHEMA", "K8sIngestor", "ParsedK8s", "parse", "to_graph"]


class K8sIngestor(FileIngestor[ParsedK8s]):
    """The ``k8s`` ingestor (``--k8s DIR_OR_FILE``)."""

    name = "k8s"
    description = "Kubernetes manifests, ARC runner scale sets and Helm values, RBAC, aws-auth, kubeconfigs"
    option = InputOption("DIR_OR_FILE", "Kubernetes manifests / rendered Helm output / ARC values files (one "
                         "cluster per path; a graphkit.k8s-cluster/v1 descriptor or 'aws eks describe-cluster' "
                         "output names it). Repeatable.")
    nothing_found = "no Kubernetes manifest, ARC values file or kubeconfig (*.yaml, *.yml, *.json) found"
    #: merged after inventories and host snapshots: the cluster's own description (name, production) wins over a
    #: kubeconfig grant's target node
    merge_rank = RANK_CLOUD

    def parse(self, text: str, file: InputFile) -> ParsedK8s:
        """:func:`~ingest.k8s.parse.parse` of one file (one problem per bad document)."""
        return parse(text, file.name, str(file.root) if file.root is not None else file.name)

    def to_graph(self, parsed: list[ParsedK8s], collected: Collected) -> IngestResult:
        """:func:`~ingest.k8s.to_graph.to_graph`."""
        return to_graph(parsed)


INGESTOR = K8sIngestor()
