// name: self-hosted-jobs-fork-pull-requests
// purpose: Jobs on self-hosted runners that pull requests from forks can trigger (pull_request, pull_request_target) in repositories that are not known to be private.
// params: none
// counterpart: receives_job edges from runners to jobs whose triggers (the job's, else its workflow's) hold pull_request or pull_request_target, repository not private
// GitHub: "forks of your public repository can potentially run dangerous code on your self-hosted runner machine by
// creating a pull request that executes the code in a workflow" (https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/about-self-hosted-runners#self-hosted-runner-security);
// events: https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request
// rendered from templates/self-hosted-jobs-fork-pull-requests.cypher by `python -m graphkit.docs` (edit the template, not this file)
MATCH p = (r:Runner)-[:RECEIVES_JOB]->(j:Job)
OPTIONAL MATCH (w:Workflow)-[:HAS_JOB]->(j)
OPTIONAL MATCH (repo:Repository {full_name: j.repository})
WITH p, r, j, repo, coalesce(j.triggers, w.triggers, []) AS triggers
WHERE any(t IN triggers WHERE t IN ['pull_request', 'pull_request_target'])
  AND coalesce(repo.visibility, 'unknown') <> 'private'
RETURN j.id AS id, j.repository AS repository, coalesce(repo.visibility, 'unknown') AS visibility,
       [t IN triggers WHERE t IN ['pull_request', 'pull_request_target']] AS fork_triggers, r.id AS runner,
       r.ephemeral AS ephemeral, p AS route
ORDER BY id, runner
