#!/bin/sh
# SLURM epilog hook of the Jobsight collector: records the job's final reading.
# Install with `Epilog=/path/to/epilog.sh` in slurm.conf (or call it from an existing epilog).
# It ALWAYS exits 0, and quickly: a failing or hanging epilog drains the node.
JOB="${SLURM_JOB_ID:-}"
[ -n "$JOB" ] || exit 0
BIN="${JOBSIGHT_COLLECTOR_BIN:-jobsight-collector}"
LIMIT="${JOBSIGHT_EPILOG_TIMEOUT:-5}"
if command -v timeout >/dev/null 2>&1; then
  timeout -k 1 "$LIMIT" "$BIN" epilog --job "$JOB" >/dev/null 2>&1 || true
else
  "$BIN" epilog --job "$JOB" >/dev/null 2>&1 || true
fi
exit 0
