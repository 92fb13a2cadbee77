// name: choke-points
// purpose: Credentials on the most runner-to-critical-asset connections: (runners reaching it) x (critical assets it reaches).
// param limit: how many credentials to return
// :param limit => 20
// counterpart: per credential-like node (secret, cloud_secret, credential, github_token, oidc_identity, cloud_role, cloud_user): runners whose blast radius holds it, critical nodes it reaches
// rendered from templates/choke-points.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (c:Graphkit)
WHERE c:Secret OR c:CloudSecret OR c:Credential OR c:GitHubToken OR c:OIDCIdentity OR c:CloudRole OR c:CloudUser
MATCH (r:Runner)
MATCH p = shortestPath((r)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT*..20]->(c))
WITH c, count(DISTINCT r) AS runners
MATCH (t:Graphkit)
WHERE t.criticality = 'critical' AND t <> c AND EXISTS { MATCH ()-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT]->(t) }
MATCH q = shortestPath((c)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT*..20]->(t))
WITH c, runners, count(DISTINCT t) AS targets
RETURN c.id AS id, c.kind AS kind, c.name AS name, runners * targets AS pairs, runners, targets
ORDER BY pairs DESC, targets DESC, id
LIMIT $limit
