// name: blast-radius-host
// purpose: Everything a build host reaches: all its runners and what each reaches, each asset with one shortest path.
// param host_id: graphkit id of the host (list them with `graphkit nodes --kind host`)
// :param host_id => 'host:build-01'
// counterpart: graphkit.analysis.blast_radius from the host (same reached ids within 20 hops, where this query stops: a longer path, such as a long role chain, is followed by `graphkit blast-radius --backend neo4j`, not here; hops = shortest path length)
// rendered from templates/blast-radius-host.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (h:Host {id: $host_id})
MATCH (n:Graphkit)
WHERE n <> h AND EXISTS { MATCH ()-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS]->(n) }
MATCH p = shortestPath((h)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, length(p) AS hops,
       [x IN nodes(p) WHERE x:Runner | x.id][0] AS via_runner, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY CASE criticality WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         kind, id
