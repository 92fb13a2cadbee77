// name: long-lived-credentials-from-runners
// purpose: Long-lived credentials (secrets, cloud secrets, IAM users' access keys, signing keys, on-disk credentials valid until rotated) reachable from any runner, by how many runners reach them.
// params: none
// counterpart: union of blast_radius over every runner: secret, cloud_secret, cloud_user, signing_key nodes, and credential nodes of unbounded lifetime
MATCH (c:{{node}})
WHERE c:Secret OR c:CloudSecret OR c:CloudUser OR c:SigningKey
   OR (c:Credential AND NOT c.lifetime IN ['oidc_token', 'registration_token', 'cloud_session', 'chained_session', 'per_job', 'not_applicable'])
MATCH (r:Runner)
MATCH p = shortestPath((r)-[:{{traversable}}*..{{max_hops}}]->(c))
WITH c, collect(r.id) AS runners
RETURN c.id AS id, c.kind AS kind, c.name AS name, c.criticality AS criticality, size(runners) AS runner_count, runners
ORDER BY runner_count DESC, id
