// name: blast-radius-runner
// purpose: Everything a runner reaches over traversable relationships (its blast radius), each asset with one shortest path.
// param runner_id: graphkit id of the runner (list them with `graphkit nodes --kind runner`)
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: graphkit.analysis.blast_radius (same reached ids within {{max_hops}} hops, where this query stops: a longer path, such as a long role chain, is followed by `graphkit blast-radius --backend neo4j`, not here; hops = shortest path length over traversable edges)
MATCH (s:Runner {id: $runner_id})
MATCH (n:{{node}})
WHERE n <> s AND EXISTS { MATCH ()-[:{{traversable}}]->(n) }
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, length(p) AS hops,
       [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY CASE criticality WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         kind, id
