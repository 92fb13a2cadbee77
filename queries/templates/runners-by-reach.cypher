// name: runners-by-reach
// purpose: Every runner ranked by what it reaches: critical assets, secrets, all nodes.
// params: none
// counterpart: blast_radius of each runner (size, critical count, secret count)
MATCH (n:{{node}})
WHERE EXISTS { MATCH ()-[:{{traversable}}]->(n) }
WITH collect(n) AS candidates
MATCH (r:Runner)
UNWIND candidates AS n
WITH r, n
WHERE n <> r
OPTIONAL MATCH p = shortestPath((r)-[:{{traversable}}*..{{max_hops}}]->(n))
WITH r, n, p
WITH r, count(p) AS reached,
     sum(CASE WHEN p IS NOT NULL AND n.criticality = 'critical' THEN 1 ELSE 0 END) AS critical,
     sum(CASE WHEN p IS NOT NULL AND n:Secret THEN 1 ELSE 0 END) AS secrets
RETURN r.id AS id, r.name AS name, r.ephemeral AS ephemeral, reached, critical, secrets
ORDER BY critical DESC, reached DESC, id
