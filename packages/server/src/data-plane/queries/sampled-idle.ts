import type { WasteJob, WasteRow } from "@jobsight/schemas";
import { toNumber } from "../storage/database.js";

/** Most jobs listed per group in `idleJobs`. */
export const IDLE_JOBS_PER_GROUP = 10;

/**
 * Idle core-seconds and GPU-seconds measured from the usage samples, as common table expressions
 * that follow an `ended` CTE of ended jobs (`key, cluster, job_id, started_at, ended_at, run_span`
 * (run time, else end − start), `cores_res`, `gpus_res` (reserved: allocated, else requested) and
 * `node_count`) and give `idle` (per key) and `idle_top` (the most idle jobs
 * per key, as JSON).
 *
 * Between two consecutive whole-job samples of one node, the cgroup's cumulative CPU time says
 * what the job used; reserved cores per node × the interval less that is idle. A counter that went
 * backwards (a recreated cgroup) leaves its interval unobserved. GPUs: nvidia-smi's utilisation ×
 * GPUs read, averaged over the interval's two readings, is the busy GPU time; intervals longer
 * than three times the node's median (a gap, where the readings say nothing) and intervals without
 * GPU readings at both ends are unobserved. Samples are taken from the job's start to five minutes
 * after its end (the epilog's final reading), intervals clipped at the end. What the samples do
 * not cover is counted as unobserved, never as idle.
 */
export const SAMPLED_IDLE_CTES = `
  readings AS (
    SELECT e.cluster, e.job_id, s.node, s.time, e.ended_at, s.cpu_seconds, s.gpu_utilization,
      CASE WHEN jsonb_typeof(s.sample -> 'gpus') = 'array' THEN jsonb_array_length(s.sample -> 'gpus') ELSE 0 END AS gpu_n
    FROM ended e
    JOIN usage_samples s ON s.cluster = e.cluster AND s.job_id = e.job_id AND s.step = ''
    WHERE e.started_at IS NOT NULL AND e.ended_at IS NOT NULL
      AND s.time >= e.started_at AND s.time <= e.ended_at + interval '5 minutes'
  ), intervals AS (
    SELECT cluster, job_id, node,
      extract(epoch FROM least(time, ended_at) - lag(time) OVER w)::float8 AS dt,
      cpu_seconds - lag(cpu_seconds) OVER w AS dcpu,
      (gpu_utilization * gpu_n + lag(gpu_utilization) OVER w * lag(gpu_n) OVER w) / 200.0 AS gpus_busy
    FROM readings
    WINDOW w AS (PARTITION BY cluster, job_id, node ORDER BY time)
  ), gap_bars AS (
    SELECT cluster, job_id, node, 3 * percentile_cont(0.5) WITHIN GROUP (ORDER BY dt) AS bar
    FROM intervals WHERE dt > 0 GROUP BY cluster, job_id, node
  ), sampled AS (
    SELECT i.cluster, i.job_id,
      sum(i.dt) FILTER (WHERE i.dcpu >= 0) AS cpu_node_s,
      sum(i.dcpu) FILTER (WHERE i.dcpu >= 0) AS cpu_used,
      sum(i.dt) FILTER (WHERE i.gpus_busy IS NOT NULL AND i.dt <= b.bar) AS gpu_node_s,
      sum(i.gpus_busy * i.dt) FILTER (WHERE i.gpus_busy IS NOT NULL AND i.dt <= b.bar) AS gpu_used
    FROM intervals i JOIN gap_bars b USING (cluster, job_id, node)
    WHERE i.dt > 0
    GROUP BY i.cluster, i.job_id
  ), job_idle AS (
    SELECT e.key, e.cluster, e.job_id, e.run_span AS run,
      e.cores_res IS NOT NULL AND e.cores_res > 0 AND p.cpu_node_s IS NULL AS lacks_cpu,
      e.gpus_res > 0 AND p.gpu_node_s IS NULL AS lacks_gpu,
      coalesce(e.cores_res, 0) / e.node_count * coalesce(p.cpu_node_s, 0) AS obs_core_s,
      greatest(0, coalesce(e.cores_res, 0) / e.node_count * coalesce(p.cpu_node_s, 0) - coalesce(p.cpu_used, 0)) AS idle_core_s,
      greatest(0, coalesce(e.cores_res, 0) * coalesce(e.run_span, 0) - coalesce(e.cores_res, 0) / e.node_count * coalesce(p.cpu_node_s, 0)) AS unobs_core_s,
      e.gpus_res / e.node_count * coalesce(p.gpu_node_s, 0) AS obs_gpu_s,
      greatest(0, e.gpus_res / e.node_count * coalesce(p.gpu_node_s, 0) - coalesce(p.gpu_used, 0)) AS idle_gpu_s,
      greatest(0, e.gpus_res * coalesce(e.run_span, 0) - e.gpus_res / e.node_count * coalesce(p.gpu_node_s, 0)) AS unobs_gpu_s
    FROM ended e LEFT JOIN sampled p USING (cluster, job_id)
  ), idle AS (
    SELECT key,
      sum(idle_core_s) AS idle_core_s, sum(obs_core_s) AS obs_core_s, sum(unobs_core_s) AS unobs_core_s,
      sum(idle_gpu_s) AS idle_gpu_s, sum(obs_gpu_s) AS obs_gpu_s, sum(unobs_gpu_s) AS unobs_gpu_s,
      count(*) FILTER (WHERE lacks_cpu) AS jobs_without_cpu,
      count(*) FILTER (WHERE lacks_gpu) AS jobs_without_gpu
    FROM job_idle GROUP BY key
  ), idle_top AS (
    SELECT key, jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
        'cluster', cluster, 'jobId', job_id, 'runSeconds', run,
        'idleCoreSeconds', idle_core_s, 'observedCoreSeconds', obs_core_s, 'unobservedCoreSeconds', unobs_core_s,
        'idleGpuSeconds', idle_gpu_s, 'observedGpuSeconds', obs_gpu_s, 'unobservedGpuSeconds', unobs_gpu_s
      )) ORDER BY idle_gpu_s DESC, idle_core_s DESC, cluster, job_id) AS jobs
    FROM (
      SELECT *, row_number() OVER (PARTITION BY key ORDER BY idle_gpu_s DESC, idle_core_s DESC, cluster, job_id) AS n
      FROM job_idle WHERE idle_core_s > 0 OR idle_gpu_s > 0
    ) ranked
    WHERE n <= ${IDLE_JOBS_PER_GROUP}
    GROUP BY key
  )`;

/** The sampled-idle fields of one report row, from the `idle` and `idle_top` columns. */
export function sampledIdleFields(r: Record<string, unknown>): Partial<WasteRow> {
  const sum = (column: string) => Math.max(0, toNumber(r[column]) ?? 0);
  const jobs = Array.isArray(r.idle_jobs) ? (r.idle_jobs as Record<string, unknown>[]) : [];
  return {
    idleCoreSeconds: sum("idle_core_s"),
    observedCoreSeconds: sum("obs_core_s"),
    unobservedCoreSeconds: sum("unobs_core_s"),
    idleGpuSeconds: sum("idle_gpu_s"),
    observedGpuSeconds: sum("obs_gpu_s"),
    unobservedGpuSeconds: sum("unobs_gpu_s"),
    jobsWithoutCpuSamples: sum("jobs_without_cpu"),
    jobsWithoutGpuSamples: sum("jobs_without_gpu"),
    idleJobs: jobs.map(toWasteJob),
  };
}

function toWasteJob(j: Record<string, unknown>): WasteJob {
  const n = (key: string) => Math.max(0, toNumber(j[key]) ?? 0);
  const run = toNumber(j.runSeconds);
  return {
    cluster: String(j.cluster),
    jobId: String(j.jobId),
    ...(run !== undefined ? { runSeconds: Math.max(0, run) } : {}),
    idleCoreSeconds: n("idleCoreSeconds"),
    observedCoreSeconds: n("observedCoreSeconds"),
    unobservedCoreSeconds: n("unobservedCoreSeconds"),
    idleGpuSeconds: n("idleGpuSeconds"),
    observedGpuSeconds: n("observedGpuSeconds"),
    unobservedGpuSeconds: n("unobservedGpuSeconds"),
  };
}
