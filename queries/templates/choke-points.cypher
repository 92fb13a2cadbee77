// name: choke-points
// purpose: Credentials on the most runner-to-critical-asset connections: (runners reaching it) x (critical assets it reaches).
// param limit: how many credentials to return
// :param limit => 20
// counterpart: per credential-like node (secret, cloud_secret, credential, github_token, oidc_identity, cloud_role, cloud_user): runners whose blast radius holds it, critical nodes it reaches
MATCH (c:{{node}})
WHERE c:Secret OR c:CloudSecret OR c:Credential OR c:GitHubToken OR c:OIDCIdentity OR c:CloudRole OR c:CloudUser
MATCH (r:Runner)
MATCH p = shortestPath((r)-[:{{traversable}}*..{{max_hops}}]->(c))
WITH c, count(DISTINCT r) AS runners
MATCH (t:{{node}})
WHERE t.criticality = 'critical' AND t <> c AND EXISTS { MATCH ()-[:{{traversable}}]->(t) }
MATCH q = shortestPath((c)-[:{{traversable}}*..{{max_hops}}]->(t))
WITH c, runners, count(DISTINCT t) AS targets
RETURN c.id AS id, c.kind AS kind, c.name AS name, runners * targets AS pairs, runners, targets
ORDER BY pairs DESC, targets DESC, id
LIMIT $limit
