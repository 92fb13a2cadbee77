// name: critical-targets-from-runner
// purpose: Signing keys and production deployment targets a runner reaches, with one shortest path each.
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached signing_key nodes and deployment_target nodes that are production or critical
// rendered from templates/critical-targets-from-runner.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (s:Runner {id: $runner_id})
MATCH (n:Graphkit)
WHERE n:SigningKey OR (n:DeploymentTarget AND (n.production = true OR n.criticality = 'critical'))
MATCH p = shortestPath((s)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, n.production AS production,
       length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, id
