/**
 * Every threshold the diagnosis rules use, in one place, each with the reason for its value.
 *
 * Rules import {@link DIAGNOSIS_THRESHOLDS} (or take a copy with overrides) and never hard-code a
 * figure of their own, so a site can see and tune what "idle", "most of the job" or "a leak" means.
 *
 * @example
 * ```ts
 * const t: DiagnosisThresholds = { ...DIAGNOSIS_THRESHOLDS, gpuIdlePercent: 2 };
 * diagnose(input, { thresholds: t });
 * ```
 */
export interface DiagnosisThresholds {
  /**
   * A GPU below this `utilization.gpu` is idle. nvidia-smi reports the share of the sample period in
   * which a kernel ran; a GPU nobody uses still shows 0-3% from monitoring and context set-up.
   */
  readonly gpuIdlePercent: number;
  /**
   * "Most of the job": the share of samples a condition must hold in. 80% leaves room for start-up
   * and tear-down, where any job looks idle, without calling a half-busy job idle.
   */
  readonly mostOfJobShare: number;
  /**
   * A GPU below this utilisation is starved; used per sample by the stalled-loader rule and as the
   * job-mean bar for "under-utilised". Well-fed training sits at 70-100%; under 30% most of the
   * GPU's time is spent waiting for input or for the host.
   */
  readonly gpuLowUtilisationPercent: number;
  /**
   * `io.pressure some avg10` above this means the job's tasks spent more than a fifth of the last
   * ten seconds stalled on I/O: a loader that cannot keep up with storage.
   */
  readonly ioPressureSomePercent: number;
  /**
   * A loader's CPUs are saturated when the job uses at least this share of its cores in a sample
   * (decoding and augmentation bound by CPU rather than storage).
   */
  readonly cpuSaturatedShare: number;
  /**
   * A stalled window needs this many consecutive samples (1-2 min at the usual 15-30 s interval):
   * shorter dips are epoch boundaries, checkpoints or evaluation, not a stalled loader.
   */
  readonly stallMinSamples: number;
  /** The stalled windows together must cover at least this share of the GPU samples to be a finding. */
  readonly stallMinShare: number;
  /**
   * CPU efficiency (CPU time / (run time x reserved cores)) below this is low: the job reserved four
   * times the cores it used on average.
   */
  readonly cpuLowEfficiencyShare: number;
  /**
   * CPU and GPU use are judged from at least this many samples (two intervals): one interval alone
   * may be nothing but start-up or tear-down.
   */
  readonly usageMinSamples: number;
  /**
   * ... spanning at least this share of the run, so a claim about the run rests on most of it
   * (a claim about a period needs samples covering that period); a short job is judged like a
   * long one once its samples cover it.
   */
  readonly usageMinCoverShare: number;
  /**
   * ... and at least this many seconds (three intervals at the collector's default 10 s): under
   * it, the few samples there are say little beyond start-up, whatever share of the run they span.
   */
  readonly usageMinSpanSeconds: number;
  /** CPU efficiency is only judged for jobs that reserved at least this many cores (one core cannot be trimmed). */
  readonly cpuLowEfficiencyMinCores: number;
  /**
   * A cgroup throttled in more than this share of its CFS periods (`nr_throttled / nr_periods`) ran
   * into its `cpu.max` quota often enough to slow it; a few percent is normal bursting.
   */
  readonly throttledPeriodsShare: number;
  /**
   * `cpu.pressure some avg10` above this, while the job uses all its cores, means runnable tasks
   * waited for a core a large part of the time: more threads than cores.
   */
  readonly cpuPressureSomePercent: number;
  /** Share of samples in which CPU contention must be seen to call the job oversubscribed. */
  readonly cpuOversubscribedShare: number;
  /**
   * Runnable threads (state R) at or above this many per reserved core mean threads queue for a
   * core. A job with one thread per core reads a few more R threads now and then (a progress or I/O
   * thread waking); half again as many as cores means a third of them wait at any instant.
   */
  readonly runnableThreadsPerCore: number;
  /**
   * The node's runnable tasks (or, failing a count, its 1-minute load average) at or above this
   * many per reserved core, on a node the job has to itself, mean its threads queue for a core. The
   * node's daemons and the collector add a task or two; half again as many as cores is well above.
   */
  readonly nodeLoadPerCore: number;
  /**
   * CPU time above this multiple of the reserved cores between two samples means the job's threads
   * ran on cores it did not reserve (no cpuset or quota held it): it oversubscribes the node.
   * The 10% margin covers counter and clock jitter between two readings.
   */
  readonly cpuAboveReservedShare: number;
  /** A completed job that used less than this share of its walltime request over-requested it. */
  readonly walltimeUsedShare: number;
  /** Walltime over-requests are only reported for requests of at least this length (s); below, the cost is small. */
  readonly walltimeMinRequestSeconds: number;
  /** A completed job whose memory peak stayed under this share of its request over-requested memory. */
  readonly memoryUsedShare: number;
  /** Memory over-requests are only reported for requests of at least this size: small requests are defaults. */
  readonly memoryMinRequestBytes: number;
  /** Peak GPU memory under this share of the reserved GPU memory is over-reserved (a smaller GPU or slice would do). */
  readonly gpuMemoryUsedShare: number;
  /**
   * `memory.peak` above this multiple of the largest sampled `memory.current` means the high-water
   * mark was reached between two samples: a spike shorter than the sampling interval.
   */
  readonly peakBetweenSamplesRatio: number;
  /**
   * A leak: memory rises in at least this share of consecutive sample pairs. Real leaks climb
   * almost every interval; working sets that breathe with batches do not.
   */
  readonly leakRisingShare: number;
  /** ... and grows by at least this share of the limit from the first sample to the largest. */
  readonly leakMinGrowthShareOfLimit: number;
  /** A rise between two samples smaller than this share of the limit is noise, not a rise. */
  readonly memoryNoiseShareOfLimit: number;
  /**
   * A sudden spike: at least this share of the limit gained within the last
   * {@link DiagnosisThresholds.spikeMaxIntervals} intervals before the peak.
   */
  readonly spikeMinJumpShareOfLimit: number;
  /** How many intervals a rise may take and still count as sudden. */
  readonly spikeMaxIntervals: number;
  /**
   * Memory at or above this share of the limit counts as "at the limit" (SIGKILL with memory at the
   * limit is an OOM kill). Sampling rarely catches the exact byte the kernel refused.
   */
  readonly atLimitShare: number;
  /** Below this share of the limit, a SIGKILL (exit 137) is not attributed to memory. */
  readonly notMemoryBelowShare: number;
  /** A window without a sample longer than this multiple of the median interval is a gap. */
  readonly gapIntervalMultiple: number;
  /**
   * Kernel and collector clocks differ from the scheduler's, and the kernel logs a kill a moment
   * before the scheduler records the end: events this many seconds around the job still count.
   */
  readonly eventSlackSeconds: number;
  /**
   * A GPU that fell off the bus stays lost until the GPU is reset or the node rebooted: reports of
   * the same GPU lost (nvidia-smi's "GPU is lost", the kernel's Xid) within this many seconds are
   * one loss. The collector matches an Xid to nvidia-smi's report within the same hour.
   */
  readonly gpuLossWindowSeconds: number;
  /** The last share of a timed-out job's samples examined for a hang. */
  readonly hangTailShare: number;
  /** A timed-out job using less than this many cores in its tail looks hung rather than slow. */
  readonly hangMaxCores: number;
  /**
   * Run-time history says "the limit is too short" when at least this share of past runs took
   * longer than this job's limit.
   */
  readonly historyExceededShare: number;
  /** Run-time history says "this run was unusually long" when the 90th percentile of past runs is below this share of the limit. */
  readonly historyUnusualShare: number;
}

/** The thresholds Jobsight ships with; see {@link DiagnosisThresholds} for why each value. */
export const DIAGNOSIS_THRESHOLDS: DiagnosisThresholds = Object.freeze({
  gpuIdlePercent: 5,
  mostOfJobShare: 0.8,
  gpuLowUtilisationPercent: 30,
  ioPressureSomePercent: 20,
  cpuSaturatedShare: 0.9,
  stallMinSamples: 3,
  stallMinShare: 0.2,
  cpuLowEfficiencyShare: 0.25,
  usageMinSamples: 3,
  usageMinCoverShare: 0.6,
  usageMinSpanSeconds: 30,
  cpuLowEfficiencyMinCores: 2,
  throttledPeriodsShare: 0.1,
  cpuPressureSomePercent: 40,
  cpuOversubscribedShare: 0.5,
  runnableThreadsPerCore: 1.5,
  nodeLoadPerCore: 1.5,
  cpuAboveReservedShare: 1.1,
  walltimeUsedShare: 0.1,
  walltimeMinRequestSeconds: 3600,
  memoryUsedShare: 0.25,
  memoryMinRequestBytes: 4 * 2 ** 30,
  gpuMemoryUsedShare: 0.25,
  peakBetweenSamplesRatio: 1.2,
  leakRisingShare: 0.7,
  leakMinGrowthShareOfLimit: 0.25,
  memoryNoiseShareOfLimit: 0.002,
  spikeMinJumpShareOfLimit: 0.3,
  spikeMaxIntervals: 2,
  atLimitShare: 0.95,
  notMemoryBelowShare: 0.8,
  gapIntervalMultiple: 3,
  eventSlackSeconds: 120,
  gpuLossWindowSeconds: 3600,
  hangTailShare: 0.2,
  hangMaxCores: 0.05,
  historyExceededShare: 0.3,
  historyUnusualShare: 0.5,
});
