// name: runners-by-reach
// purpose: Every runner ranked by what it reaches: critical assets, secrets, all nodes.
// params: none
// counterpart: blast_radius of each runner (size, critical count, secret count)
MATCH (r:Runner)
OPTIONAL MATCH (r)-[* {traversable: true}]->(n)
WHERE n <> r
WITH DISTINCT r, n
WITH r, count(n) AS reached, sum(CASE WHEN n.criticality = 'critical' THEN 1 ELSE 0 END) AS critical,
     sum(CASE WHEN n:Secret THEN 1 ELSE 0 END) AS secrets
RETURN r.id AS id, r.name AS name, r.ephemeral AS ephemeral, reached, critical, secrets
ORDER BY critical DESC, reached DESC, id
