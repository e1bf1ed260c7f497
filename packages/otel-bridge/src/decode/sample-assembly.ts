import type { UsageSample } from "@jobsight/schemas";
import { requiredFields, type SampleDraft } from "../mapping/observation-mapping.js";
import { unixNanoToRfc3339 } from "../otlp/unix-nano.js";
import type { Pending } from "./pending-samples.js";

// How a gathered draft becomes a sample: which sections stand, and how its time is written.

/** The points a draft holds, over all its sections. */
export function pointsOf(draft: SampleDraft): number {
  let n = 0;
  for (const key in draft.points) n += draft.points[key];
  return n;
}

const CHECKED_SECTIONS = ["memory", "cpu", "io", "progress"] as const;

function lacksField(section: Record<string, unknown>, fields: readonly string[]): boolean {
  for (const field of fields) if (section[field] === undefined) return true;
  return false;
}

/** Drops sections the schema cannot accept (a required field is missing) and counts their points. */
export function dropIncompleteSections(
  draft: SampleDraft,
  reject: (points: number, reason: string) => void,
): void {
  for (const name of CHECKED_SECTIONS) {
    const rule = requiredFields[name];
    const section = draft[name];
    if (section && lacksField(section, rule.fields)) {
      reject(draft.points[name] ?? 0, rule.because);
      draft.points[name] = 0;
      draft[name] = undefined;
    }
  }
  if (!draft.gpus) return;
  for (const [index, gpu] of draft.gpus) {
    if (lacksField(gpu, requiredFields.gpu.fields)) {
      reject(draft.points[`gpu:${index}`] ?? 0, requiredFields.gpu.because);
      draft.points[`gpu:${index}`] = 0;
      draft.gpus.delete(index);
    }
  }
}

/** The sample of a gathered entry; `undefined` when no point is left in it. */
export function buildSample(pending: Pending, times: TimeTexts): UsageSample | undefined {
  const { draft } = pending;
  // A section is there exactly when a point filled it and it was not dropped since.
  if (pointsOf(draft) === 0) return undefined;
  const sample: Record<string, unknown> = {
    cluster: pending.cluster,
    jobId: pending.jobId,
    node: pending.node,
  };
  if (pending.step !== undefined) sample.step = pending.step;
  sample.time = times.text(pending.timeLo, pending.timeHi);
  if (pending.user !== undefined) sample.user = pending.user;
  if (draft.memory) sample.memory = draft.memory;
  if (draft.cpu) sample.cpu = draft.cpu;
  if (draft.io) sample.io = draft.io;
  if (draft.pressure) sample.pressure = draft.pressure;
  if (draft.pids !== undefined) sample.pids = draft.pids;
  if (draft.gpus && draft.gpus.size > 0) sample.gpus = [...draft.gpus.values()];
  if (draft.progress) sample.progress = draft.progress;
  if (draft.processes && draft.processes.size > 0) sample.processes = [...draft.processes.values()];
  if (pending.final) sample.final = true;
  return sample as UsageSample;
}

/**
 * {@link unixNanoToRfc3339} of `hi · 2^32 + lo`, each distinct millisecond formatted once per
 * body: samples of many nodes and jobs share their collectors' ticks, and formatting a date was
 * a twentieth of decoding. Whole milliseconds (nearly every sample) need no BigInt: split so that
 * every intermediate stays an exact integer below 2^53.
 */
export class TimeTexts {
  readonly #byMillisecond = new Map<number, string>();

  text(lo: number, hi: number): string {
    const below = hi * 967_296 + lo; // 2^32 = 4294 · 10^6 + 967296
    if (below % 1_000_000 !== 0) return unixNanoToRfc3339((BigInt(hi) << 32n) | BigInt(lo));
    const ms = hi * 4294 + below / 1_000_000;
    let text = this.#byMillisecond.get(ms);
    if (text === undefined) {
      text = new Date(ms).toISOString();
      this.#byMillisecond.set(ms, text);
    }
    return text;
  }
}
