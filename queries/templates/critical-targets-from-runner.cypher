// name: critical-targets-from-runner
// purpose: Signing keys and production deployment targets a runner reaches, with one shortest path each.
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached signing_key nodes and deployment_target nodes that are production or critical
MATCH (s:Runner {id: $runner_id})
MATCH (n:{{node}})
WHERE n:SigningKey OR (n:DeploymentTarget AND (n.production = true OR n.criticality = 'critical'))
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, n.production AS production,
       length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, id
