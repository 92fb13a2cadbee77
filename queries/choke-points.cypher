// name: choke-points
// purpose: Credentials on the most runner-to-critical-asset connections: (runners reaching it) x (critical assets it reaches).
// param limit: how many credentials to return
// :param limit => 20
// counterpart: per credential-like node (secret, credential, github_token, oidc_identity, cloud_role): runners whose blast radius holds it, critical nodes it reaches
MATCH (r:Runner)-[* {traversable: true}]->(c)
WHERE c:Secret OR c:Credential OR c:GitHubToken OR c:OIDCIdentity OR c:CloudRole
WITH DISTINCT r, c
WITH c, count(r) AS runners
MATCH (c)-[* {traversable: true}]->(t)
WHERE t.criticality = 'critical' AND t <> c
WITH DISTINCT c, runners, t
WITH c, runners, count(t) AS targets
RETURN c.id AS id, c.kind AS kind, c.name AS name, runners * targets AS pairs, runners, targets
ORDER BY pairs DESC, targets DESC, id
LIMIT $limit
