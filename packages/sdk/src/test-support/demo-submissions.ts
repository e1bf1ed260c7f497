// The submissions of the demo and the examples, read from the repository, and predictions about
// them as the server makes them: what the demo-submissions property test runs the edit path over.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Prediction, ResourceName, ResourcePrediction } from "@jobsight/schemas";
import { diffArrays } from "diff";
import fc from "fast-check";
import { samples } from "../../../../examples/submission-portal/src/samples.js";
import { detectFormat, type SubmissionFormat } from "../submissions/detect-format.js";
import { readManifest } from "../submissions/kubernetes/manifest-workloads.js";
import { splitLines } from "../submissions/text-lines.js";

/** One submission as a user would hand it to `jobsight predict`/`edit`, and the workload to edit. */
export type DemoSubmission = { file: string; format: SubmissionFormat; text: string; workload?: string };

const root = fileURLToPath(new URL("../../../../", import.meta.url));
// Where the demo keeps what users submit: `pnpm demo` predicts examples/demo/*.
const searched = ["examples", "packages/server/demo"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

// A manifest submits work when it has a workload with containers: one entry per workload.
function asSubmissions(file: string, text: string): DemoSubmission[] {
  const format = detectFormat(text, file);
  if (format === "sbatch") return /^#SBATCH/m.test(text) ? [{ file, format, text }] : [];
  if (!/\.ya?ml$/.test(file)) return [];
  const manifest = readManifest(text);
  if (manifest.errors.length > 0) return [];
  return manifest.workloads
    .filter((w) => w.containers.length > 0)
    .map((w) => ({ file, format, text, workload: w.id }));
}

/**
 * Every sbatch script and Kubernetes workload of the demo and the examples: the files found under
 * examples/ and packages/server/demo/, and the submission portal's samples.
 */
export function demoSubmissions(): DemoSubmission[] {
  const found = searched
    .flatMap((dir) => filesUnder(join(root, dir)))
    .filter((path) => /\.(sbatch|slurm|sh|ya?ml)$/.test(path))
    .flatMap((path) => asSubmissions(relative(root, path), readFileSync(path, "utf8")));
  const portal = Object.values(samples).flatMap((s) =>
    asSubmissions(`examples/submission-portal/src/samples.ts:${s.fileName}`, s.text),
  );
  return [...found, ...portal];
}

const MiB = 2 ** 20;
const evidence = { group: "user=20,executable=ocean-model", jobs: 40 };
const units = {
  memory: "bytes",
  gpuMemory: "bytes",
  cores: "cores",
  gpus: "devices",
  walltime: "seconds",
} as const;

// Values as the server rounds them: whole MiB, whole minutes, whole devices, and whole cores for
// SLURM but millicores for Kubernetes. `asked` is what the submission asks today (no change).
function amountArb(resource: ResourceName, format: SubmissionFormat, asked?: number): fc.Arbitrary<number> {
  const any =
    resource === "cores"
      ? format === "sbatch"
        ? fc.integer({ min: 1, max: 512 })
        : fc.integer({ min: 1, max: 256_000 }).map((m) => m / 1000)
      : resource === "gpus"
        ? fc.integer({ min: 0, max: 16 })
        : resource === "walltime"
          ? fc.integer({ min: 1, max: 30 * 1440 }).map((m) => m * 60)
          : fc.integer({ min: 0, max: 2 ** 20 }).map((k) => k * MiB);
  return asked === undefined ? any : fc.oneof(any, fc.constant(asked));
}

function outcome(resource: ResourceName, value: fc.Arbitrary<number>): fc.Arbitrary<ResourcePrediction> {
  const refusal: ResourcePrediction = {
    resource,
    status: "insufficient_evidence",
    reasonCode: "too_few_similar_jobs",
    reason: "too few similar jobs",
  };
  const recommendation = fc
    .tuple(value, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
    .chain(([v, below, confidence]) =>
      fc.constantFrom(v, v * 1.5).map(
        (high): ResourcePrediction => ({
          resource,
          status: "ok",
          unit: units[resource],
          value: v,
          low: v * below,
          high,
          confidence,
          evidence,
        }),
      ),
    );
  return fc.oneof(fc.constant(refusal), recommendation);
}

/**
 * A live prediction for a submission: per resource a recommendation (`low ≤ value ≤ high`,
 * confidence in [0, 1], the value rounded as the server rounds it) or insufficient_evidence.
 */
export function predictionArb(
  format: SubmissionFormat,
  asked: Partial<Record<ResourceName, number>>,
): fc.Arbitrary<Prediction> {
  const names: ResourceName[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];
  return fc.tuple(...names.map((r) => outcome(r, amountArb(r, format, asked[r])))).map((resources) => ({
    id: "pred-1",
    createdAt: "2024-05-01T12:00:00.000Z",
    mode: "live",
    modelVersion: "m-1",
    cluster: "demo",
    user: "20",
    resources,
  }));
}

/** What an edit did to the lines of a text: removed line indices (before), added line indices (after). */
export type LineChanges = { removed: number[]; added: number[] };

/** The lines an edit removed and added, by a minimal line diff (each line with its end-of-line). */
export function lineChanges(before: string, after: string): LineChanges {
  const key = (text: string) => splitLines(text).map((l) => l.text + l.eol);
  const changes: LineChanges = { removed: [], added: [] };
  let i = 0;
  let j = 0;
  for (const part of diffArrays(key(before), key(after))) {
    const n = part.count ?? part.value.length;
    for (let k = 0; k < n; k++) {
      if (part.removed) changes.removed.push(i++);
      else if (part.added) changes.added.push(j++);
      else {
        i++;
        j++;
      }
    }
  }
  return changes;
}
