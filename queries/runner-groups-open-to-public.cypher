// name: runner-groups-open-to-public
// purpose: Runner groups that public repositories may use (allows_public_repositories, or a public repository allowed), with their runners.
// params: none
// counterpart: runner_group nodes with allows_public_repositories or an allows_repository edge to a public repository
// rendered from templates/runner-groups-open-to-public.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (g:RunnerGroup)
OPTIONAL MATCH (g)-[:ALLOWS_REPOSITORY]->(repo:Repository)
WHERE repo.visibility = 'public'
WITH g, collect(DISTINCT repo.full_name) AS public_repositories
WHERE g.allows_public_repositories = true OR size(public_repositories) > 0
OPTIONAL MATCH (r:Runner)-[:MEMBER_OF]->(g)
RETURN g.id AS id, g.visibility AS visibility, g.allows_public_repositories AS allows_public_repositories,
       public_repositories, collect(DISTINCT r.id) AS runners
ORDER BY size(runners) DESC, id
