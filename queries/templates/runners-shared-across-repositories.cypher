// name: runners-shared-across-repositories
// purpose: Runners that take jobs of more than one repository (one compromised repository reaches the others' jobs).
// params: none
// counterpart: receives_job edges grouped by runner, distinct job repositories
MATCH (r:Runner)-[:RECEIVES_JOB]->(j:Job)
WITH r, collect(DISTINCT j.repository) AS repositories, count(DISTINCT j) AS jobs
WHERE size(repositories) > 1
RETURN r.id AS id, r.name AS name, r.scope AS scope, r.ephemeral AS ephemeral,
       size(repositories) AS repository_count, repositories, jobs
ORDER BY repository_count DESC, id
