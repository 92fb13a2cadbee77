// name: paths-runners-to-critical
// purpose: Attack paths from every runner to critical assets (signing keys, production or critical deployment targets, anything rated critical), drawn as a graph in Browser; bounded by $limit paths.
// param limit: how many (runner, asset) paths to return at most
// :param limit => 200
// counterpart: for every runner, blast_radius reached signing keys, production or critical deployment targets and critical nodes, with shortest path lengths
MATCH (n:{{node}})
WHERE n:SigningKey OR n.criticality = 'critical' OR (n:DeploymentTarget AND n.production = true)
MATCH (r:Runner)
WHERE r <> n
MATCH p = shortestPath((r)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN r.id AS runner, n.id AS id, n.kind AS kind, length(p) AS hops, p AS route
ORDER BY hops, runner, id
LIMIT $limit
