-- Core tables of the data plane: clusters, job records, node events, artifacts, API tokens and
-- import checkpoints. Time series live in 0002 (TimescaleDB or plain PostgreSQL).

CREATE TABLE clusters (
  id text PRIMARY KEY,
  name text NOT NULL,
  scheduler text NOT NULL CHECK (scheduler IN ('slurm', 'kubernetes')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per job; later lifecycle phases replace earlier ones (phase_rank). The wire record is
-- kept whole in `record`; the columns beside it exist for filtering, paging and history summaries.
CREATE TABLE jobs (
  cluster text NOT NULL,
  job_id text NOT NULL,
  phase text NOT NULL CHECK (phase IN ('submitted', 'started', 'ended')),
  phase_rank smallint NOT NULL,
  source text NOT NULL,
  user_name text NOT NULL,
  account text,
  partition text,
  executable text,
  state text,
  submitted_at timestamptz NOT NULL,
  started_at timestamptz,
  ended_at timestamptz,
  requested_memory_bytes bigint,
  requested_cores integer,
  requested_gpus integer,
  requested_walltime_seconds bigint,
  peak_memory_bytes bigint,
  run_time_seconds double precision,
  record jsonb NOT NULL,
  idempotency_key text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, job_id)
);

-- Keyset pagination (newest first) overall and per user, account and partition.
CREATE INDEX jobs_by_submitted ON jobs (submitted_at DESC, cluster DESC, job_id DESC);
CREATE INDEX jobs_by_user ON jobs (user_name, submitted_at DESC, cluster DESC, job_id DESC);
CREATE INDEX jobs_by_account ON jobs (account, submitted_at DESC, cluster DESC, job_id DESC);
CREATE INDEX jobs_by_partition ON jobs (partition, submitted_at DESC, cluster DESC, job_id DESC);
-- Look-ups of a job id without its cluster.
CREATE INDEX jobs_by_job_id ON jobs (job_id);
-- History summaries of ended jobs per (user, executable).
CREATE INDEX jobs_history ON jobs (user_name, executable, ended_at DESC) WHERE phase = 'ended';

-- Node events, deduplicated by the sender's idempotency key or a hash of their content.
CREATE TABLE node_events (
  cluster text NOT NULL,
  dedupe_key text NOT NULL,
  node text NOT NULL,
  time timestamptz NOT NULL,
  kind text NOT NULL,
  job_id text,
  event jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, dedupe_key)
);
CREATE INDEX node_events_by_job ON node_events (cluster, job_id, time) WHERE job_id IS NOT NULL;
CREATE INDEX node_events_by_node ON node_events (cluster, node, time);

-- Content-addressed artifacts (the bytes live in the object store) and who linked them to what.
CREATE TABLE artifacts (
  sha256 text PRIMARY KEY CHECK (sha256 ~ '^[a-f0-9]{64}$'),
  size_bytes bigint NOT NULL,
  content_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE artifact_links (
  sha256 text NOT NULL REFERENCES artifacts (sha256),
  kind text NOT NULL,
  cluster text NOT NULL DEFAULT '',
  job_id text NOT NULL DEFAULT '',
  uploaded_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sha256, kind, cluster, job_id, uploaded_by)
);
CREATE INDEX artifact_links_by_job ON artifact_links (cluster, job_id);

-- Scoped API tokens, stored as sha256 of the token; revocable.
CREATE TABLE api_tokens (
  token_sha256 text PRIMARY KEY CHECK (token_sha256 ~ '^[a-f0-9]{64}$'),
  id text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('researcher', 'platform', 'collector', 'scheduler')),
  user_name text NOT NULL,
  cluster text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- Resumable history imports: the last line committed per source.
CREATE TABLE import_checkpoints (
  source_id text PRIMARY KEY,
  source_kind text NOT NULL,
  last_line bigint NOT NULL DEFAULT 0,
  imported bigint NOT NULL DEFAULT 0,
  duplicates bigint NOT NULL DEFAULT 0,
  bad_lines bigint NOT NULL DEFAULT 0,
  completed boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
