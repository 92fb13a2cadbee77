// name: blast-radius-host
// purpose: Everything a build host reaches: all its runners and what each reaches, each asset with one shortest path.
// param host_id: graphkit id of the host (list them with `graphkit nodes --kind host`)
// :param host_id => 'host:build-01'
// counterpart: graphkit.analysis.blast_radius from the host (same reached ids within {{max_hops}} hops, where this query stops: a longer path, such as a long role chain, is followed by `graphkit blast-radius --backend neo4j`, not here; hops = shortest path length)
MATCH (h:Host {id: $host_id})
MATCH (n:{{node}})
WHERE n <> h AND EXISTS { MATCH ()-[:{{traversable}}]->(n) }
MATCH p = shortestPath((h)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, length(p) AS hops,
       [x IN nodes(p) WHERE x:Runner | x.id][0] AS via_runner, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY CASE criticality WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         kind, id
