import { type Series, Times } from "./pending-samples.js";

/**
 * The series of one request by identity (cluster, job id, node, step and, for a container-only
 * sample, its container), made on first sight. Series are kept by node, then job id, then (rarely
 * more than one) cluster, step and container: the strings a body repeats are the same objects, so
 * these lookups hash nothing twice; and consecutive points mostly belong to the same series, which
 * is then answered without a lookup.
 */
export class SeriesIndex {
  readonly #byNode = new Map<string, Map<string, Series[]>>();
  #last: Series = {
    cluster: "",
    jobId: "",
    node: "",
    step: "\u0000",
    containerId: undefined,
    times: new Times(),
  };

  /** The series of an identity (`step` "" when absent); `undefined` when a field holds U+0000. */
  get(
    cluster: string,
    jobId: string,
    node: string,
    step: string,
    containerId: string | undefined,
  ): Series | undefined {
    const last = this.#last;
    if (
      cluster === last.cluster &&
      jobId === last.jobId &&
      node === last.node &&
      step === last.step &&
      containerId === last.containerId
    ) {
      return last;
    }
    const found = this.#find(cluster, jobId, node, step, containerId);
    if (found) this.#last = found;
    return found;
  }

  #find(
    cluster: string,
    jobId: string,
    node: string,
    step: string,
    containerId: string | undefined,
  ): Series | undefined {
    let byJob = this.#byNode.get(node);
    if (!byJob) {
      byJob = new Map();
      this.#byNode.set(node, byJob);
    }
    let list = byJob.get(jobId);
    if (!list) {
      list = [];
      byJob.set(jobId, list);
    }
    for (const s of list) {
      if (s.cluster === cluster && s.step === step && s.containerId === containerId) return s;
    }
    // Checked once per identity: PostgreSQL text cannot store U+0000.
    if (`${cluster}${jobId}${node}${step}`.includes("\u0000")) return undefined;
    const series: Series = { cluster, jobId, node, step, containerId, times: new Times() };
    list.push(series);
    return series;
  }
}
