-- jobsight:no-transaction
-- Usage samples in TimescaleDB: a hypertable with daily chunks, compressed per job, and a
-- continuous aggregate of hourly per-job summaries (real-time, so recent samples count too).
-- Continuous aggregates cannot be created inside a transaction, so every statement here is
-- idempotent and the migration can be re-run after a crash. Compression and retention policies
-- are set from the configuration at start (see sample-policies.ts).

CREATE EXTENSION IF NOT EXISTS timescaledb;

CREATE TABLE IF NOT EXISTS usage_samples (
  time timestamptz NOT NULL,
  cluster text NOT NULL,
  job_id text NOT NULL,
  node text NOT NULL,
  step text NOT NULL DEFAULT '',
  memory_bytes bigint,
  memory_peak_bytes bigint,
  cpu_seconds double precision,
  gpu_memory_bytes bigint,
  gpu_utilization double precision,
  sample jsonb NOT NULL,
  PRIMARY KEY (cluster, job_id, node, step, time)
);

SELECT create_hypertable('usage_samples', 'time', chunk_time_interval => INTERVAL '1 day', if_not_exists => TRUE);

ALTER TABLE usage_samples SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'cluster, job_id',
  timescaledb.compress_orderby = 'node, step, time'
);

CREATE MATERIALIZED VIEW IF NOT EXISTS job_usage_hourly
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT
  time_bucket(INTERVAL '1 hour', time) AS bucket,
  cluster,
  job_id,
  count(*) AS samples,
  max(greatest(memory_bytes, memory_peak_bytes)) AS max_memory_bytes,
  max(cpu_seconds) AS max_cpu_seconds,
  max(gpu_memory_bytes) AS max_gpu_memory_bytes,
  min(time) AS first_time,
  max(time) AS last_time
FROM usage_samples
GROUP BY bucket, cluster, job_id
WITH NO DATA;

SELECT add_continuous_aggregate_policy('job_usage_hourly',
  start_offset => INTERVAL '3 days',
  end_offset => INTERVAL '1 hour',
  schedule_interval => INTERVAL '30 minutes',
  if_not_exists => TRUE);
