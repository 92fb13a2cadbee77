// name: persistent-runners
// purpose: Self-hosted runners that are not ephemeral (or not known to be) and the jobs, repositories and workflows routed to them.
// params: none
// counterpart: runner nodes with ephemeral false or unknown, and their receives_job edges
MATCH (r:Runner)
WHERE r.ephemeral IS NULL OR r.ephemeral = false
OPTIONAL MATCH (r)-[:RECEIVES_JOB]->(j:Job)
RETURN r.id AS id, r.name AS name, r.ephemeral AS ephemeral, r.inferred AS inferred, r.host AS host,
       count(DISTINCT j) AS jobs, collect(DISTINCT j.repository) AS repositories,
       collect(DISTINCT j.repository + '/' + j.workflow_path) AS workflows
ORDER BY jobs DESC, id
