"""Runner inventory ingestor: what the GitHub API or an operator knows about runners.

One YAML or JSON file per organization (or several), format
``graphkit.runner-inventory/v1``; the JSON Schema generated from the models
(:mod:`ingest.runner_inventory.models`) is shipped as
``schemas/runner-inventory.schema.json`` (regenerate with
``python -m ingest.runner_inventory --write schemas/runner-inventory.schema.json``).
A future live API collector and a host collector write the same format, so
field names follow the GitHub REST API where one exists
(``GET /orgs/{org}/actions/runners``, ``/runner-groups``, ``/actions/secrets``,
``GET /repos/{owner}/{repo}/environments``).

Format (every list is optional; a field not given is **unknown**, never empty)::

    schema: graphkit.runner-inventory/v1
    organizations:
      - name: acme
        secrets_complete: true          # the list below is every org secret
        secrets:
          - {name: NPM_TOKEN, visibility: all}          # all | private | selected
          - {name: DEPLOY_KEY, visibility: selected, selected_repositories: [acme/infra]}
        runner_groups:
          - name: shared-linux
            visibility: selected                         # all | selected | private
            selected_repositories: [acme/app, acme/docs]
            allows_public_repositories: false            # GitHub default
            restricted_to_workflows: false
            selected_workflows: []                       # owner/repo/.github/workflows/x.yml@ref
        oidc_sub_template: {include_claim_keys: [repo, context]}
    repositories:
      - full_name: acme/app
        visibility: private                              # public | private | internal
        default_branch: main
        secrets: [PYPI_TOKEN]
        secrets_complete: true
        environments:
          - name: production
            secrets: [PROD_DB_URL]
            secrets_complete: true
            protection_rules: [{type: required_reviewers, reviewers: [acme/release-managers]}]
    hosts:
      - name: build-01
        os: linux
        ephemeral: false
        credentials:
          - {credential_type: aws, path: ~/.aws/credentials, fingerprint: "3f2a9c0d",
             lifetime: until_rotated,
             grants: [{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::111122223333:role/x"}]}
        caches: [{path: /opt/hostedtoolcache, kind: toolcache}]
    runners:
      - {name: build-01-a, id: 11, labels: [self-hosted, linux, x64], scope: acme,
         runner_group: shared-linux, ephemeral: false, host: build-01, os: linux, status: online}
    github_hosted_labels: [acme-ubuntu-8core]    # org larger-runner names (hosted)
    self_hosted_labels: []                       # never treat these as hosted

Nodes (ids built by :mod:`graphkit.model.ids`): Organization, Repository,
RunnerGroup (``runner_group:{owner}/{group}``, group lower-cased), Runner,
Host, Secret (``secret:org:{owner}:{NAME}``, ``secret:repo:{owner}/{repo}:{NAME}``,
``secret:env:{owner}/{repo}:{env}:{NAME}``, environment lower-cased),
DeploymentTarget for environments (``target:environment:{owner}/{repo}:{env}``,
lower-cased; ``production`` only when the inventory states it), Credential
(``credential:{host}:{path}``) and Cache (``cache:host:{host}:{path}``); plus
the targets named by credential grants (CloudRole, CloudUser,
DeploymentTarget, SigningKey, Repository) so that their edges always have
both ends.

Edges: HOSTS, RUNS_ON_HOST, MEMBER_OF, OWNS, ALLOWS_REPOSITORY, HAS_SECRET,
STORES_CREDENTIAL, SHARES_CACHE and the credential grants.  Every node and
edge carries :class:`~graphkit.model.Evidence` with the file (as given), the
YAML path (``runners[2]``) and the line.

Facts the resolver needs that are not node fields go to
``IngestResult.meta["runner_inventory"]``, a
:class:`graphkit.meta.InventoryFacts` (``graph.meta.runner_inventory``):
hosted-label overrides, ids whose secret lists are complete, OIDC ``sub``
templates, groups whose workflow list is unknown, owners whose runner list is
given, organizations declared, files read.

Structure: :mod:`~ingest.runner_inventory.models` (the format),
:mod:`~ingest.runner_inventory.parse` (pure: text ->
:class:`ParsedInventory`, entry by entry, problems naming file, place and
line), :mod:`~ingest.runner_inventory.grants` (credential grant targets),
:mod:`~ingest.runner_inventory.to_graph` (pure: models -> nodes, edges and
facts, one function per section) and :class:`RunnerInventoryIngestor` (the
shared :class:`~graphkit.ingestor.FileIngestor` loop does the I/O).  Secret
values are never part of the format: only names.
"""

from __future__ import annotations


from graphkit.registry import lazy_package
from graphkit.ingestor import RANK_INVENTORY, Collected, FileIngestor, IngestResult, InputFile, InputOption

#: re-exported names -> their module, imported on first use (``graphkit --help`` reads the ingestor's option
#: without importing pydantic models)
_EXPORTS = {
    "grants": ("grant_target",),
    "models": ("SCHEMA_ID", "CredentialGrant", "Environment", "HostCache", "HostCredential", "HostEntry",
               "OrganizationEntry", "OrgSecret", "RepositoryEntry", "RunnerEntry", "RunnerGroupEntry",
               "RunnerInventory", "RunnerLabel", "json_schema", "schema_text"),
    "parse": ("ParsedInventory", "parse"),
    "to_graph": ("META_KEY", "file_graph", "merge_facts", "to_graph"),
}


__all__ = ["INGESTOR", "META_KEY", "SCHEMA_ID", "CredentialGrant", "Environment", "HostCache", "HostCredential",
           "HostEntry", "OrgSecret", "OrganizationEntry", "ParsedInventory", "RepositoryEntry", "RunnerEntry",
           "RunnerGroupEntry", "RunnerInventory", "RunnerInventoryIngestor", "RunnerLabel", "file_graph",
           "grant_target", "json_schema", "merge_facts", "parse", "schema_text", "to_graph"]


class RunnerInventoryIngestor(FileIngestor["ParsedInventory"]):
    """The ``runners`` ingestor (``--runners inventory.yaml``): inventories and host snapshots."""

    name = "runners"
    description = "Runner inventory (graphkit.runner-inventory/v1 YAML/JSON): runners, groups, hosts, secrets"
    option = InputOption("FILE", "Runner inventory file(s) or folders of them (YAML/JSON, graphkit.runner-inventory/v1; "
                         "host snapshots from 'graphkit collect host' too). Repeatable.")
    nothing_found = "no inventory file (*.yaml, *.yml, *.json) found"
    merge_rank = RANK_INVENTORY

    def parse(self, text: str, file: InputFile) -> "ParsedInventory":
        """:func:`~ingest.runner_inventory.parse.parse`: entries that fail validation are left out and listed in
        ``problems``."""
        from ingest.runner_inventory.parse import parse
        return parse(text, file.name)

    def to_graph(self, parsed: list["ParsedInventory"], collected: Collected) -> IngestResult:
        """:func:`~ingest.runner_inventory.to_graph.to_graph`: a file whose graph cannot be built is one problem;
        ``meta[META_KEY]`` holds the :class:`~graphkit.meta.InventoryFacts` of every file."""
        from ingest.runner_inventory.to_graph import to_graph
        return to_graph(parsed)


INGESTOR = RunnerInventoryIngestor()


lazy_package(__name__, _EXPORTS)
