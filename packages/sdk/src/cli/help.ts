const connection = `Connection (flags over environment over config file):
  --url <url>        Jobsight server URL            (JOBSIGHT_URL)
  --token <token>    bearer token                   (JOBSIGHT_TOKEN)
  --config <file>    config file (default ~/.config/jobsight/config.json, or $XDG_CONFIG_HOME/jobsight/config.json)
  --timeout <ms>     deadline of one request        (JOBSIGHT_TIMEOUT_MS, default 30000)
  Config file keys: url, token, cluster, user, timeoutMs, retries. Colours only on a terminal; NO_COLOR turns them off.`;

const operatorNote = `The operator commands call the server's API with the token given (--token or
JOBSIGHT_TOKEN); they never open its database. Changes need a site-wide admin token (role admin,
bound to no cluster): the first one comes from the server's configuration (auth.tokens, role
admin) or an OIDC group granted the admin role. --cluster and --user name what is acted on; the
configured cluster and user are not applied. Every command takes --json for a JSON document.
Exit codes: 0 ok, 2 usage or configuration error or refused by the server (wrong role, unknown
cluster, …), 3 server unreachable.`;

/** The help of each command, and of the CLI as a whole. */
export const helpTexts: Record<string, string> = {
  main: `jobsight — predict what jobs need, edit submissions, diagnose failures

Usage: jobsight <command> [options]

Commands:
  predict <file>...     predict a sbatch script's or Kubernetes manifest's resources and show the edit
  diagnose <job-id>     why a job failed or ran badly; exit code for CI
  alerts [actions]      live alerts over running jobs (GPUs idle, memory near its limit, cores idle),
                        and the log of actions taken on them
  policy <command>      show, validate, simulate, set or audit the platform team's policy
  cluster <command>     list, add or remove the clusters the server accepts data from
  token <command>       issue, list or revoke API tokens (admin)
  user list             the users seen in recorded jobs and issued tokens (admin)
  model <command>       the model in service: status, promote a version, roll back (admin)
  waste [--savings]     reserved and unused hours by user, account or partition, in money with rates
  import <file>         import job history (SWF, sacct) into the server
  backtest <trace>      replay a trace and report prediction quality
  server                run the Jobsight server
  help [command]        show help

Run 'jobsight <command> --help' for a command's options.
Exit codes: 0 ok, 1 findings of severity error (diagnose), 2 usage or configuration error, 3 server unreachable.

${connection}
`,
  predict: `Usage: jobsight predict <job.sbatch|pod.yaml>... [options]

Reads each submission, asks the server for a prediction, prints per resource the request, the
recommendation, its range and confidence, then the edit of the submission as a unified diff.

Options:
  --apply              write the edit into the file (the original is kept as <file>.bak)
  --json               print a JSON document instead of the table and diff
  --cluster <id>       cluster the job is for                (JOBSIGHT_CLUSTER, config "cluster")
  --user <name>        who submits it                        (JOBSIGHT_USER, default: your login name)
  --policy <file>      a Policy JSON file (leaveAlone, neverLower, floors, caps, ...)
  --workload <name>    Kubernetes: the workload (Job/name, name or Argo template) to predict
  --container <name>   Kubernetes: the container to resize (default: the first)
  --format <f>         sbatch or kubernetes (default: from the file name and content)
  -h, --help           show this help

Exit codes: 0 ok, 2 usage or configuration error (or refused by the server), 3 server unreachable.

${connection}
`,
  diagnose: `Usage: jobsight diagnose <job-id> [options]

Prints the server's diagnosis of a job. The exit code tells CI what it found:
  0  the job is healthy, or no finding has severity error
  1  at least one finding of severity error
  2  usage or configuration error (including an unknown job or a refused token)
  3  the server could not be reached

Options:
  --cluster <id>            the job's cluster (when the job id alone is ambiguous)
  --json                    print the Diagnosis JSON document instead of Markdown
  --format markdown|json    the same choice, older spelling (markdown is the default)
  -h, --help                show this help

${connection}
`,
  alerts: `Usage: jobsight alerts [--state firing|resolved] [options]

Lists the live alerts the server raised over running jobs, most recently seen first: GPUs reserved
and idle (gpus-idle), memory close to its limit and rising, with the time it is projected to reach
it (memory-near-limit), cores reserved and idle (cores-idle), a job that will run past its walltime
at its reported progress (walltime-overrun), and a user's jobs of one shape killed for memory again
and again (repeated-oom). A researcher's token sees their own jobs' alerts; a platform token sees
every job's. The thresholds are the server's settings.

Options:
  --state <s>          firing (the rule still holds) or resolved
  --cluster <id>       only this cluster's jobs
  --user <name>        only this user's jobs
  --limit <n>          most alerts listed, 1 to 1000 (default 100)
  --json               print {"alerts": [...]} with each alert's evidence instead of the table
  -h, --help           show this help

Usage: jobsight alerts actions [--cluster <id>] [--user <name>] [--job <id>] [--limit <n>] [--json]

Lists the audit log of actions under policy, newest first: jobs cancelled after their GPUs stayed
idle past the warning and the grace period, repeat offenders' submissions held, and in dry-run
mode what would have been done (outcome dry-run). Each names the job, the rule, when the warning
started and why; failed actions add the scheduler's answer. A researcher's token sees actions on
their own jobs; a platform token sees every job's.
  --job <id>           only this job's actions
  --cluster, --user, --limit as above
  --json               print {"actions": [...]} with each action's evidence instead of the table

Usage: jobsight alerts preferences [--alerts on|off] [--channels email,webhook] [--digest on|off]
                                   [--quiet HH:MM-HH:MM [--time-zone <IANA zone>] | --no-quiet]

Prints how live alerts and the weekly digest reach you (JSON); any option changes that setting
and keeps the others. Alerts in the quiet hours (on your clock: --time-zone, e.g. Europe/Berlin,
default this machine's) are held and sent when they end, if still firing.
  --for-user <name>    another user's (platform token only)

Exit codes: 0 ok, 2 usage or configuration error (or refused by the server), 3 server unreachable.

${connection}
`,
  policy: `Usage: jobsight policy <command> [options]

The platform team's policy: what scheduler integrations may change in a submission. A policy file
is checked locally first (schema, then rules that contradict each other, such as a floor above a
cap), every problem as 'path: message', so nothing invalid reaches the server.

Commands:
  show [--json]                     the policy in force
  validate <policy.json>            check a policy file; needs no server
  simulate <policy.json> [--cluster <id>] [--from <time>] [--to <time>] [--json]
                                    what the policy would have changed on the predictions recorded
                                    from --from until --to (default: the server's last 7 days)
  set <policy.json>                 check, then replace the policy in force (platform role)
  audit [--cluster <id>] [--user <name>] [--limit <n>] [--json]
                                    the changes applied under the policy, newest first (default 50)

Times are ISO 8601 (2026-11-25T00:00:00Z; a bare date is midnight UTC). Memory is shown in GiB,
walltime in hours. --cluster and --user only narrow what is read: the configured cluster and user
are not applied, as the policy is site-wide.

Exit codes: 0 ok (valid), 2 invalid policy, usage or configuration error, or refused by the server
(e.g. a token without the platform role), 3 server unreachable.

${connection}
`,
  cluster: `Usage: jobsight cluster <command> [options]

The clusters the server accepts data from: collectors and schedulers of any other cluster are
refused (ingest.requireRegisteredCluster).

Commands:
  list [--json]                      every registered cluster (platform or admin role)
  add <id> --scheduler slurm|kubernetes [--name <text>] [--json]
                                     register a cluster, or change the name and scheduler of a
                                     registered one (platform or admin role; --name defaults to the id)
  remove <id> [--force] [--json]     remove a registration (admin). Its issued API tokens are
                                     revoked; its recorded jobs, usage and predictions are kept (the
                                     model learns from them). A cluster with recorded jobs is
                                     refused unless --force. Ingest may go on accepting its data
                                     for up to a minute.

${operatorNote}

${connection}
`,
  token: `Usage: jobsight token <command> [options]

API tokens issued by the server (admin). The server keeps only a token's sha256; a new token is
printed once, alone on stdout, so it can be captured (TOKEN=$(jobsight token create …)); its id,
role and scope go to stderr. With --json the token is in the JSON document instead.

Commands:
  create --role <role> [--cluster <id>] [--user <name>] [--label <text>] [--json]
                        issue a token. Roles: researcher, platform, admin, collector, scheduler.
                        collector and scheduler tokens need --cluster; researcher, platform and
                        admin tokens need --user (who the token acts as); admin tokens are never
                        bound to a cluster. --cluster must be a registered cluster
                        (jobsight cluster add); a token bound to one reaches only that cluster.
  list [--json]         every issued token, live and revoked (id, prefix, role, cluster, user)
  revoke <id> [--json]  refuse the token from the next request on (the id is in 'token list')

${operatorNote}

${connection}
`,
  user: `Usage: jobsight user list [--cluster <id>] [--json]

The users the server knows of (admin): everyone with recorded jobs (their clusters, how many jobs,
the last submission) or with a live issued API token (how many, which roles). With --cluster, only
that cluster's jobs and the tokens bound to it or to no cluster count. Users of tokens in the
server's configuration and OIDC users who never submitted a job are not stored, so not listed.

${operatorNote}

${connection}
`,
  waste: `Usage: jobsight waste [--by user|account|partition] [--cluster <id>] [--from <time>] [--to <time>]
         [--savings] [--json]

Prints the ended jobs' reserved and unused hours (platform role): core-, GiB- and GPU-hours
requested and not used, and the core- and GPU-hours the usage samples saw idle ("—" where no sample
observed them). When the server has rates configured (cost.* of the server), the unused and idle
hours in money too; without rates, amounts only. --savings adds what the advice recorded for the
jobs' submissions would have saved over the 30 days before --to (or now).

Options:
  --by <grouping>      user (default), account or partition
  --from, --to <time>  only jobs that ended in this window (RFC 3339)
  --savings            add the savings had the advice been applied
  --json               print the report as the server sent it

${operatorNote}

${connection}
`,
  model: `Usage: jobsight model <command> [options]

The site's trained model versions and which one is in service.

Commands:
  status [--json]              the version in service and the latest versions: status, when and
                               on how many jobs each was trained, the memory backtest (platform
                               or admin role)
  promote <version> [--json]   put a version into service, whatever its status (admin); the one
                               in service is retired. A version the server cannot load is refused
                               and nothing changes
  rollback [--json]            put the previous version back into service (admin); the current
                               one is marked rolled_back

The server answering serves the new version at once; other replicas within their refresh
interval (10 s by default).

${operatorNote}

${connection}
`,
  import: `Usage: jobsight import <file> --format swf|sacct|sacct-json [options]

Streams a history file (Standard Workload Format, or sacct output) into the server in batches
(POST /v1/jobs), so a site need not start from zero. Parsing is done by the Jobsight server
package (@jobsight/server, see 'jobsight server --help'): this command runs its
'jobsight-server import' with the same arguments.

${connection}
`,
  backtest: `Usage: jobsight backtest <trace> [--format swf] [--window 0.3] [--json]
         [--resources memory,walltime] [--predictions FILE] [--settings FILE]

Replays a Standard Workload Format trace without look-ahead (the last 30% by submit time is
scored) and prints coverage, under-prediction, slack, range coverage and calibration per
resource, next to the users' own requests and a VPA-style baseline. --predictions FILE also
writes every scored prediction as one JSON line (job, resource, status, value, low, high,
confidence, actual, censored, request, modelVersion), so every figure can be recomputed.
--settings FILE runs the model with other settings (JSON, e.g. {"conformal": {"missRate": 0.006}};
each field checked, and repeated in the --json report), for a leave-one-trace-out search.
Runs 'jobsight-server backtest' from the Jobsight server package (@jobsight/server, see
'jobsight server --help') with the same arguments.
`,
  server: `Usage: jobsight server [options]

Runs the Jobsight server (data plane and intelligence plane) from the Jobsight server package:
'jobsight server --config server.json' runs 'jobsight-server serve --config server.json'. Install
it beside this CLI: 'npm i -g @jobsight/server' (which also puts 'jobsight-server' on the PATH), or
'npm i @jobsight/server' in the project that has @jobsight/sdk. The container image and the
systemd unit are described in the README of @jobsight/server.
`,
};
