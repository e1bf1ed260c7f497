#!/usr/bin/env bash
# Diagnoses a cluster job with Jobsight and posts the Markdown: to the log, to the CI job summary
# ($GITHUB_STEP_SUMMARY) and, when PR_NUMBER is set, as a comment on that pull request.
#
#   JOB_ID=4242 JOBSIGHT_CLUSTER=hpc1 JOBSIGHT_URL=... JOBSIGHT_TOKEN=... ./diagnose.sh
#
# Exit code: the CLI's (0 nothing serious, 1 a finding of severity error, 2 usage error or unknown
# job, 3 Jobsight unreachable), so the CI job goes red exactly when the job it looked at failed.
set -uo pipefail

: "${JOB_ID:?JOB_ID must name the job to diagnose}"
report=$(mktemp)
trap 'rm -f "$report"' EXIT

jobsight diagnose "$JOB_ID" --format markdown > "$report"
status=$?
if [ "$status" -gt 1 ]; then
  echo "::error::jobsight diagnose $JOB_ID failed with exit code $status"
  exit "$status"
fi

cat "$report"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$report" >> "$GITHUB_STEP_SUMMARY"
fi

if [ -n "${PR_NUMBER:-}" ]; then
  : "${GITHUB_TOKEN:?GITHUB_TOKEN is needed to comment}" "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is needed to comment}"
  jq --raw-input --slurp '{body: .}' < "$report" |
    curl --silent --show-error --fail-with-body --request POST \
      --header "Authorization: Bearer $GITHUB_TOKEN" \
      --header "Accept: application/vnd.github+json" \
      --header "X-GitHub-Api-Version: 2022-11-28" \
      --data-binary @- \
      "${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments" > /dev/null ||
    { echo "::error::could not comment on pull request $PR_NUMBER"; exit 4; }
fi
exit "$status"
