// name: who-reaches
// purpose: Inbound: every runner, host and entry point (a node no traversable relationship leads to, such as an untrusted source) with a path to this secret, role, signing key or deployment target, each with one shortest path.
// param target_id: graphkit id of the asset (a secret, cloud role, signing key, deployment target...)
// :param target_id => 'target:environment:acme/app:production'
// counterpart: reverse breadth-first search from the target over traversable edges (cutoff max_hops); sources kept: runner, host, and nodes without inbound traversable edges
// rendered from templates/who-reaches.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (t:Graphkit {id: $target_id})
MATCH (s:Graphkit)
WHERE s <> t AND (s:Runner OR s:Host OR NOT EXISTS { MATCH (s)<-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS]-() })
MATCH p = shortestPath((s)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(t))
RETURN s.id AS id, s.kind AS kind, s.name AS name, length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, kind, id
