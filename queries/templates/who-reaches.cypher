// name: who-reaches
// purpose: Inbound: every runner, host and entry point (a node no traversable relationship leads to, such as an untrusted source) with a path to this secret, role, signing key or deployment target, each with one shortest path.
// param target_id: graphkit id of the asset (a secret, cloud role, signing key, deployment target...)
// :param target_id => 'target:environment:acme/app:production'
// counterpart: reverse breadth-first search from the target over traversable edges (cutoff max_hops); sources kept: runner, host, and nodes without inbound traversable edges
MATCH (t:{{node}} {id: $target_id})
MATCH (s:{{node}})
WHERE s <> t AND (s:Runner OR s:Host OR NOT EXISTS { MATCH (s)<-[:{{traversable}}]-() })
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(t))
RETURN s.id AS id, s.kind AS kind, s.name AS name, length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, kind, id
