// name: secrets-from-runner
// purpose: Secrets a runner reaches (the jobs routed to it read them, or a token or credential leads to them).
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached nodes of kind secret (same ids and scopes; hops = shortest path length)
MATCH (s:Runner {id: $runner_id})
MATCH (n:Secret)
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN n.id AS id, n.secret_name AS secret_name, n.scope AS scope, n.repository AS repository,
       n.environment AS environment, length(p) AS hops, [r IN relationships(p) | type(r)] AS via, p AS route
ORDER BY hops, id
