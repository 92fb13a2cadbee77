// name: paths-runners-to-critical
// purpose: Attack paths from every runner to critical assets (signing keys, production or critical deployment targets, anything rated critical), drawn as a graph in Browser; bounded by $limit paths.
// param limit: how many (runner, asset) paths to return at most
// :param limit => 200
// counterpart: for every runner, blast_radius reached signing keys, production or critical deployment targets and critical nodes, with shortest path lengths
// rendered from templates/paths-runners-to-critical.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (n:Graphkit)
WHERE n:SigningKey OR n.criticality = 'critical' OR (n:DeploymentTarget AND n.production = true)
MATCH (r:Runner)
WHERE r <> n
MATCH p = shortestPath((r)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
RETURN r.id AS runner, n.id AS id, n.kind AS kind, length(p) AS hops, p AS route
ORDER BY hops, runner, id
LIMIT $limit
