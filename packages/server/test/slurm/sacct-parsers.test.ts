// The server's sacct readers (`--json` and `--parsable2`, as `jobsight import --format sacct` uses
// them) on the real cluster's accounting, checked against what `sacct -P` says of each job.
import { Readable } from "node:stream";
import type { JobRecord } from "@jobsight/schemas";
import { beforeAll, expect, it } from "vitest";
import {
  describeSlurm,
  REFERENCE_JOBS,
  type ReferenceJobs,
  type SacctTruth,
  sacctTruth,
  slurmClient,
  submitReferenceJobs,
  waitForReferenceJobs,
} from "../../../../test/slurm/index.js";
import { sacctItems } from "../../src/data-plane/import/import-sacct.js";
import { sacctParsableExport } from "./sacct-export.js";

const MB = 1024 * 1024;

async function records(text: string, format: "json" | "parsable"): Promise<Map<string, JobRecord>> {
  const byId = new Map<string, JobRecord>();
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for await (const item of sacctItems(Readable.from([text]), format, { timeZone })) {
    if ("error" in item) throw new Error(`${format} line ${item.line}: ${item.error}`);
    byId.set(item.record.jobId, item.record);
  }
  return byId;
}

/** The checks both formats must pass: request, limit, elapsed time, peak memory, node. */
function expectCommonFacts(record: JobRecord | undefined, truth: SacctTruth, memMb: number): void {
  expect(record, `job ${truth.id}`).toBeDefined();
  expect(record!.phase).toBe("ended");
  expect(record!.spec.requested.memoryBytes).toBe(memMb * MB);
  expect(record!.spec.requested.walltimeSeconds).toBe(truth.walltimeSeconds);
  expect(record!.peaks?.runTimeSeconds, `job ${truth.id} elapsed`).toBe(truth.elapsedSeconds);
  if (truth.maxRssBytes === undefined) expect(record!.peaks?.memoryBytes).toBeUndefined();
  else
    expect(Math.abs(record!.peaks!.memoryBytes! - truth.maxRssBytes), `job ${truth.id} peak`).toBeLessThan(
      1024,
    );
  expect(record!.steps?.find((step) => step.stepId === "batch")).toBeDefined();
  expect(record!.nodes).toEqual([slurmClient().cluster.node.name]);
}

/** The server reads a signal-9 kill above the memory request as OUT_OF_MEMORY (see sacct-job.ts). */
function expectedState(truth: SacctTruth, name: string): string {
  return name === "overMemory" ? "OUT_OF_MEMORY" : truth.state;
}

describeSlurm("server sacct import readers on a real SLURM 22.05 cluster", () => {
  let jobs: ReferenceJobs;
  let truths: Map<string, SacctTruth>;
  let ids: string[];

  beforeAll(async () => {
    jobs = await submitReferenceJobs();
    await waitForReferenceJobs();
    ids = REFERENCE_JOBS.map((spec) => jobs[spec.name].id);
    truths = await sacctTruth(slurmClient(), ids);
  }, 240_000);

  it("sacct --parsable2: every job's state, exit code or signal, limit, elapsed and MaxRSS", async () => {
    const text = await sacctParsableExport(ids);
    const byId = await records(text, "parsable");
    for (const spec of REFERENCE_JOBS) {
      const truth = truths.get(jobs[spec.name].id)!;
      const record = byId.get(truth.id);
      expectCommonFacts(record, truth, spec.request.memMb);
      expect(record!.source).toBe("sacct-import");
      expect(record!.spec.jobName).toBe(spec.jobName);
      expect(record!.outcome?.state, spec.name).toBe(expectedState(truth, spec.name));
      if (truth.signal !== undefined) expect(record!.outcome?.signal, spec.name).toBe(truth.signal);
      else expect(record!.outcome?.exitCode, spec.name).toBe(truth.exitCode);
    }
    expect(byId.get(jobs.exitsOne.id)!.outcome).toMatchObject({ state: "FAILED", exitCode: 1 });
    expect(byId.get(jobs.overMemory.id)!.outcome).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
  });

  it("sacct --json: the same facts, and no invented exit code where 22.05's JSON says SUCCESS for exit 1", async () => {
    const text = await slurmClient().run("sacct", ["--json", "-a", "-j", ids.join(",")]);
    const byId = await records(text, "json");
    for (const spec of REFERENCE_JOBS) {
      const truth = truths.get(jobs[spec.name].id)!;
      const record = byId.get(truth.id);
      expectCommonFacts(record, truth, spec.request.memMb);
      expect(record!.outcome?.state, spec.name).toBe(expectedState(truth, spec.name));
      if (truth.signal !== undefined) expect(record!.outcome?.signal, spec.name).toBe(truth.signal);
      else if (spec.name !== "exitsOne") expect(record!.outcome?.exitCode, spec.name).toBe(truth.exitCode);
    }
    // The JSON says {status: SUCCESS, return_code: 0} for this FAILED job: the reader must not
    // claim exit 0, and cannot know 1.
    const failed = byId.get(jobs.exitsOne.id)!.outcome;
    expect(failed?.state).toBe("FAILED");
    expect(failed?.exitCode).toBeUndefined();
    expect(failed?.signal).toBeUndefined();
  });
});
