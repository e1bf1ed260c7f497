-- The audit of every change applied under a policy (scheduler integrations and the API).
-- IF NOT EXISTS: servers before this migration created the table themselves on first use.
CREATE TABLE IF NOT EXISTS policy_audit (
  id bigserial PRIMARY KEY,
  recorded_at timestamptz NOT NULL,
  cluster text NOT NULL,
  actor text NOT NULL,
  user_name text NOT NULL,
  submitted_by text,
  job text NOT NULL,
  resource text NOT NULL CHECK (resource IN ('memory', 'cores', 'gpus', 'gpuMemory', 'walltime')),
  before_value double precision,
  after_value double precision NOT NULL,
  model_version text NOT NULL,
  policy_name text NOT NULL,
  limited_by text,
  adjustments jsonb NOT NULL DEFAULT '[]'::jsonb,
  mode text NOT NULL CHECK (mode IN ('live', 'shadow')),
  prediction_id text
);
CREATE INDEX IF NOT EXISTS policy_audit_by_cluster ON policy_audit (cluster, recorded_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS policy_audit_by_user ON policy_audit (user_name, recorded_at DESC, id DESC);
