// name: hosts-with-multiple-runners
// purpose: Hosts with more than one runner registration (the runner-on-runner signal), and the scopes they serve.
// params: none
// counterpart: hosts edges grouped by host
// rendered from templates/hosts-with-multiple-runners.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (h:Host)-[:HOSTS]->(r:Runner)
WITH h, collect(DISTINCT r.id) AS runners, collect(DISTINCT r.scope) AS scopes
WHERE size(runners) > 1
RETURN h.id AS id, h.name AS name, size(runners) AS runner_count, runners, scopes, size(scopes) > 1 AS several_scopes
ORDER BY runner_count DESC, id
