// name: long-lived-credentials-from-runners
// purpose: Long-lived credentials (secrets, cloud secrets, IAM users' access keys, signing keys, on-disk credentials valid until rotated) reachable from any runner, by how many runners reach them.
// params: none
// counterpart: union of blast_radius over every runner: secret, cloud_secret, cloud_user, signing_key nodes, and credential nodes of unbounded lifetime
// rendered from templates/long-lived-credentials-from-runners.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (c:Graphkit)
WHERE c:Secret OR c:CloudSecret OR c:CloudUser OR c:SigningKey
   OR (c:Credential AND NOT c.lifetime IN ['oidc_token', 'registration_token', 'cloud_session', 'chained_session', 'per_job', 'not_applicable'])
MATCH (r:Runner)
MATCH p = shortestPath((r)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(c))
WITH c, collect(r.id) AS runners
RETURN c.id AS id, c.kind AS kind, c.name AS name, c.criticality AS criticality, size(runners) AS runner_count, runners
ORDER BY runner_count DESC, id
