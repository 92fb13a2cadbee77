// name: runners-by-reach
// purpose: Every runner ranked by what it reaches: critical assets, secrets, all nodes.
// params: none
// counterpart: blast_radius of each runner (size, critical count, secret count)
// rendered from templates/runners-by-reach.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (n:Graphkit)
WHERE EXISTS { MATCH ()-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT]->(n) }
WITH collect(n) AS candidates
MATCH (r:Runner)
UNWIND candidates AS n
WITH r, n
WHERE n <> r
OPTIONAL MATCH p = shortestPath((r)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT*..20]->(n))
WITH r, n, p
WITH r, count(p) AS reached,
     sum(CASE WHEN p IS NOT NULL AND n.criticality = 'critical' THEN 1 ELSE 0 END) AS critical,
     sum(CASE WHEN p IS NOT NULL AND n:Secret THEN 1 ELSE 0 END) AS secrets
RETURN r.id AS id, r.name AS name, r.ephemeral AS ephemeral, reached, critical, secrets
ORDER BY critical DESC, reached DESC, id
