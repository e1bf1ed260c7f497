-- Intelligence plane: trained models (files in the object store, versions and backtest figures
-- here), every prediction made (shadow mode included), the platform team's policy, and facts of
-- the deployment such as its first start (which shadow mode counts from). Additive only.

-- One row per trained model; at most one is active. The files (ONNX per resource and a JSON
-- manifest with the calibration) live in the object store under `manifest_sha256`.
CREATE TABLE models (
  version text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL CHECK (status IN ('active', 'retired', 'rejected', 'rolled_back')),
  trigger text NOT NULL,
  manifest_sha256 text NOT NULL CHECK (manifest_sha256 ~ '^[a-f0-9]{64}$'),
  resources text[] NOT NULL,
  training_jobs integer NOT NULL,
  data_start timestamptz,
  data_end timestamptz,
  backtest jsonb NOT NULL,
  decision jsonb NOT NULL,
  train_seconds double precision,
  activated_at timestamptz
);
CREATE UNIQUE INDEX models_one_active ON models ((true)) WHERE status = 'active';
CREATE INDEX models_by_created ON models (created_at DESC);

-- Every prediction, in full even when the caller saw none (shadow mode): what was served after
-- the policy (`resources`) and the model's own rounded outcome before it (`recommendations`).
-- `link_key` ties a prediction to the job later submitted (see link-predictions.ts).
CREATE TABLE predictions (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL,
  mode text NOT NULL CHECK (mode IN ('shadow', 'live')),
  model_version text NOT NULL,
  cluster text NOT NULL,
  user_name text NOT NULL,
  partition text,
  link_key text NOT NULL,
  submit_time timestamptz,
  spec jsonb NOT NULL,
  resources jsonb NOT NULL,
  recommendations jsonb NOT NULL,
  shadow_until timestamptz,
  notice text,
  requested_by text NOT NULL,
  idempotency_key text
);
CREATE INDEX predictions_by_created ON predictions (created_at DESC);
CREATE INDEX predictions_by_link ON predictions (cluster, link_key, created_at);
CREATE UNIQUE INDEX predictions_idempotent ON predictions (cluster, user_name, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- The policy history; the newest row is the active policy.
CREATE TABLE policies (
  id bigserial PRIMARY KEY,
  policy jsonb NOT NULL,
  set_by text NOT NULL,
  set_at timestamptz NOT NULL DEFAULT now()
);

-- Facts of the deployment, e.g. `first_start` (shadow mode counts from it).
CREATE TABLE deployment_state (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The live feature state reads ended jobs in end order, then those updated since its last read.
CREATE INDEX jobs_ended_by_end ON jobs (ended_at, cluster, job_id) WHERE phase = 'ended';
CREATE INDEX jobs_ended_by_update ON jobs (updated_at) WHERE phase = 'ended';
