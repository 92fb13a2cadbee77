// name: tokens-contents-write-on-persistent-runners
// purpose: GITHUB_TOKENs with contents: write handed to jobs on persistent (non-ephemeral or unknown) runners: a later job on the same machine can steal the token while it is valid.
// params: none
// counterpart: receives_job then has_token paths from runners with ephemeral false or unknown to github_token nodes whose permissions give contents write
// GITHUB_TOKEN permissions: https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#permissions-for-the-github_token
// rendered from templates/tokens-contents-write-on-persistent-runners.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH p = (r:Runner)-[:RECEIVES_JOB]->(j:Job)-[:HAS_TOKEN]->(t:GitHubToken)
WHERE (r.ephemeral IS NULL OR r.ephemeral = false) AND t.permissions_contents = 'write'
RETURN t.id AS id, t.repository AS repository, t.permissions_source AS permissions_source, j.id AS job,
       r.id AS runner, r.ephemeral AS ephemeral, p AS route
ORDER BY id, runner
