// name: cloud-roles-from-runner
// purpose: Cloud roles a runner can assume, through OIDC tokens of its jobs, secrets or on-disk credentials.
// param runner_id: graphkit id of the runner
// :param runner_id => 'runner:acme/build-01-a'
// counterpart: blast_radius reached nodes of kind cloud_role (same ids, providers, trust; hops = shortest path length)
MATCH (s:Runner {id: $runner_id})
MATCH (n:CloudRole)
MATCH p = shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))
RETURN n.id AS id, n.provider AS provider, n.identifier AS identifier, n.account AS account, n.trust AS trust,
       length(p) AS hops, [x IN nodes(p) | x.id] AS path, p AS route
ORDER BY hops, id
