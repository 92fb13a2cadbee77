// name: secrets-from-runner
// purpose: Secrets a runner reaches (the jobs routed to it read them, or a token or credential leads to them).
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached nodes of kind secret (same ids and scopes; hops = shortest path length)
// rendered from templates/secrets-from-runner.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (s:Runner {id: $runner_id})
MATCH (n:Secret)
MATCH p = shortestPath((s)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
RETURN n.id AS id, n.secret_name AS secret_name, n.scope AS scope, n.repository AS repository,
       n.environment AS environment, length(p) AS hops, [r IN relationships(p) | type(r)] AS via, p AS route
ORDER BY hops, id
