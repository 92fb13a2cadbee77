// name: blast-radius-sources
// purpose: Several compromised nodes at once (runners, hosts, tokens...): everything any of them reaches, each asset with one shortest path from the nearest source.
// param sources: list of graphkit ids assumed compromised
// :param sources => ['runner:acme/build-01-a', 'host:build-01']
// counterpart: graphkit.analysis.blast_radius from the list of sources (same reached ids within 20 hops, where this query stops: a longer path, such as a long role chain, is followed by `graphkit blast-radius --backend neo4j`, not here; hops = shortest path length from the nearest source)
// rendered from templates/blast-radius-sources.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (s:Graphkit)
WHERE s.id IN $sources
MATCH (n:Graphkit)
WHERE NOT n.id IN $sources AND EXISTS { MATCH ()-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS]->(n) }
MATCH p = shortestPath((s)-[:HOSTS|RUNS_ON_HOST|RECEIVES_JOB|READS_SECRET|HAS_TOKEN|WRITES_REPOSITORY|MINTS_OIDC|ASSUMES_ROLE|SIGNS_WITH|DEPLOYS_TO|PUBLISHES_TO|WRITES_CACHE|RESTORES_INTO|SHARES_CACHE|STORES_CREDENTIAL|REGISTRATION_CREDENTIAL|AUTHENTICATES_AS|ADMINISTERS|CAN_REGISTER_RUNNER|GROUP_RECEIVES_JOB|CAN_TRIGGER|AUTHENTICATES_RUNNER|RAN_JOB|USES_SERVICE_ACCOUNT|RUNS_CODE_IN|WRITES_WORKFLOWS*..20]->(n))
WITH n, p
ORDER BY length(p), s.id
WITH n, collect(p)[0] AS p
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, length(p) AS hops,
       [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY CASE criticality WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         kind, id
