// name: cloud-roles-from-runner
// purpose: Cloud roles a runner can assume, through OIDC tokens of its jobs, secrets or on-disk credentials.
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached nodes of kind cloud_role (same ids, providers, trust; hops = shortest path length)
// rendered from templates/cloud-roles-from-runner.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (s:Runner {id: $runner_id})
MATCH (n:CloudRole)
MATCH p = shortestPath((s)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
RETURN n.id AS id, n.provider AS provider, n.identifier AS identifier, n.account AS account, n.trust AS trust,
       length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, id
