-- Issue #27: the live rules walltime-overrun and repeated-oom, and the audit log of actions under
-- policy (`AlertActionStore`).
ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_rule_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_rule_check
  CHECK (rule IN ('gpus-idle', 'memory-near-limit', 'cores-idle', 'walltime-overrun', 'repeated-oom'));

-- Every action taken (or, in dry-run, decided) on an alert's evidence. One row per job, kind and
-- alert episode: an episode is acted on once, whatever the outcome; the next episode may be again.
CREATE TABLE IF NOT EXISTS alert_actions (
  id text PRIMARY KEY,
  at timestamptz NOT NULL,
  cluster text NOT NULL,
  job_id text NOT NULL,
  user_name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('cancel-job', 'hold-submission')),
  rule text NOT NULL,
  alert_id text,
  -- The alert's episode (its fired_at), or the submission's instant for a hold.
  episode timestamptz NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('dry-run', 'done', 'failed')),
  executor text NOT NULL,
  warned_at timestamptz,
  message text NOT NULL,
  detail text,
  evidence jsonb NOT NULL,
  UNIQUE (cluster, job_id, kind, episode)
);
-- GET /v1/alerts/actions: newest first, overall and per user.
CREATE INDEX IF NOT EXISTS alert_actions_by_at ON alert_actions (at DESC, id);
CREATE INDEX IF NOT EXISTS alert_actions_by_user ON alert_actions (user_name, at DESC);
