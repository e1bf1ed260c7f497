-- Usage samples in plain PostgreSQL: declaratively range-partitioned by time (daily partitions,
-- created on demand by the ingest path, dropped by the retention task), plus an hourly per-job
-- summary table maintained by the ingest path in the same transaction as the samples. TimescaleDB
-- deployments get a hypertable and a continuous aggregate of the same names and columns instead.

CREATE TABLE usage_samples (
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
) PARTITION BY RANGE (time);

CREATE TABLE job_usage_hourly (
  bucket timestamptz NOT NULL,
  cluster text NOT NULL,
  job_id text NOT NULL,
  samples bigint NOT NULL,
  max_memory_bytes bigint,
  max_cpu_seconds double precision,
  max_gpu_memory_bytes bigint,
  first_time timestamptz NOT NULL,
  last_time timestamptz NOT NULL,
  PRIMARY KEY (cluster, job_id, bucket)
);
