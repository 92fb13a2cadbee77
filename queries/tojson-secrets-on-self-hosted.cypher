// name: tojson-secrets-on-self-hosted
// purpose: Jobs that ship every secret they can see (toJSON(secrets), dynamic secrets[...]) and run on self-hosted runners.
// params: none
// counterpart: job nodes with all_secrets set that have a receives_job edge from a runner
// rendered from templates/tojson-secrets-on-self-hosted.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH (r:Runner)-[:RECEIVES_JOB]->(j:Job)
WHERE j.all_secrets_json IS NOT NULL
WITH j, collect(DISTINCT r.id) AS runners
RETURN j.id AS id, j.repository AS repository, j.job_key AS job, j.all_secrets_where AS evidence,
       size(runners) AS runner_count, runners
ORDER BY runner_count DESC, id
