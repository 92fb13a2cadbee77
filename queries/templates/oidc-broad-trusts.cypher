// name: oidc-broad-trusts
// purpose: Cloud roles assumable through OIDC with a broad trust: flagged broad by trust evaluation, trust policy not known, several repositories, pull_request or wildcard subjects.
// params: none
// counterpart: assumes_role edges from oidc_identity to cloud_role grouped by role
MATCH (o:OIDCIdentity)-[a:ASSUMES_ROLE]->(c:CloudRole)
WITH c, collect(DISTINCT o.repository) AS repositories, count(DISTINCT o) AS identities,
     sum(CASE WHEN a.confidence = 'possible' THEN 1 ELSE 0 END) AS possible_edges,
     reduce(acc = [], l IN collect(o.subjects) | acc + l) AS subjects
WITH c, repositories, identities, possible_edges,
     any(s IN subjects WHERE s ENDS WITH ':pull_request') AS pull_request,
     any(s IN subjects WHERE s CONTAINS '*') AS wildcard
WHERE c.broad_trust = true OR c.trust <> 'known' OR size(repositories) > 1 OR pull_request OR wildcard OR possible_edges > 0
RETURN c.id AS id, c.provider AS provider, c.trust AS trust, c.broad_trust AS broad_trust, size(repositories) AS repository_count, repositories,
       identities, pull_request, wildcard, possible_edges > 0 AS possible
ORDER BY repository_count DESC, identities DESC, id
