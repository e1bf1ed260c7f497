-- Live alerts over running jobs (`AlertStore`): one row per job and rule, updated at each
-- evaluation while the rule holds, so an alert is deduplicated by its key rather than written once
-- per evaluation. A rule that holds again after it resolved fires the same row again.
CREATE TABLE IF NOT EXISTS alerts (
  id text PRIMARY KEY,
  cluster text NOT NULL,
  job_id text NOT NULL,
  user_name text NOT NULL,
  rule text NOT NULL CHECK (rule IN ('gpus-idle', 'memory-near-limit', 'cores-idle')),
  severity text NOT NULL CHECK (severity IN ('critical', 'warning')),
  state text NOT NULL CHECK (state IN ('firing', 'resolved')),
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  -- When this episode started firing (first_seen, or the last time it fired again after resolving).
  fired_at timestamptz NOT NULL,
  resolved_at timestamptz,
  projected_at timestamptz,
  message text NOT NULL,
  evidence jsonb NOT NULL,
  -- The webhook channels (sha256 of their URL, never the URL: it is a credential) this episode was
  -- delivered to; a firing alert missing one of the configured channels is still to be sent.
  delivered_to text[] NOT NULL DEFAULT '{}',
  UNIQUE (cluster, job_id, rule)
);
-- GET /v1/alerts: most recently seen first, per user or overall; the loop's look-up of firing ones.
CREATE INDEX IF NOT EXISTS alerts_by_last_seen ON alerts (last_seen DESC, id);
CREATE INDEX IF NOT EXISTS alerts_by_user ON alerts (user_name, last_seen DESC);
CREATE INDEX IF NOT EXISTS alerts_firing ON alerts (fired_at) WHERE state = 'firing';
