// name: blast-radius-sources
// purpose: Several compromised nodes at once (runners, hosts, tokens...): everything any of them reaches, each asset with one shortest path from the nearest source.
// param sources: list of graphkit ids assumed compromised
// :param sources => ['runner:acme/build-01-a', 'host:build-01']
// counterpart: graphkit.analysis.blast_radius from the list of sources (same reached ids within {{max_hops}} hops, where this query stops: a longer path, such as a long role chain, is followed by `graphkit blast-radius --backend neo4j`, not here; hops = shortest path length from the nearest source)
MATCH (s:{{node}})
WHERE s.id IN $sources
MATCH (n:{{node}})
WHERE NOT n.id IN $sources AND EXISTS { MATCH ()-[:{{traversable}}]->(n) }
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))
WITH n, p
ORDER BY length(p), s.id
WITH n, collect(p)[0] AS p
RETURN n.id AS id, n.kind AS kind, n.name AS name, n.criticality AS criticality, length(p) AS hops,
       [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY CASE criticality WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
         kind, id
