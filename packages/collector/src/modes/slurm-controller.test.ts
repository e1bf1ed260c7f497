import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateJobRecord } from "@jobsight/schemas";
import type { JobRecord } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskSpool } from "../spool/disk-spool.js";
import { fakeCommand } from "../test-support/fake-command.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { expandHostlist } from "./hostlist.js";
import { SlurmController } from "./slurm-controller.js";
import { exitFromWaitStatus, slurmPhase, tresFromString } from "./slurm-json.js";

// Real outputs of a SLURM 22.05 cluster (see /work/shared/slurm/README.md).
const fixtures = join(import.meta.dirname, "fixtures");
const SACCT = join(fixtures, "sacct-all-states.json");
const SQUEUE = join(fixtures, "squeue-running3.json");
const MB = 1024 * 1024;

// `sacct -P -n -o JobIDRaw,State,ExitCode -j …` as 22.05 prints it for the two failed jobs.
const sacctScript = `case "$*" in
  *--json*) cat "${SACCT}" ;;
  *-P*) printf '5|FAILED|1:0\\n5.batch|FAILED|1:0\\n9|FAILED|3:0\\n9.batch|FAILED|3:0\\n'; echo "$*" >> "$(dirname "$0")/parsable-calls" ;;
esac`;

describe("SLURM JSON helpers", () => {
  it("reads states of old and new versions", () => {
    expect(slurmPhase("CANCELLED by 0")).toEqual({ phase: "ended", state: "CANCELLED" });
    expect(slurmPhase(["RUNNING"])).toEqual({ phase: "started" });
    expect(slurmPhase({ current: ["OUT_OF_MEMORY"], reason: "None" })).toEqual({
      phase: "ended",
      state: "OUT_OF_MEMORY",
    });
    expect(slurmPhase("PENDING")).toEqual({ phase: "submitted" });
  });

  it("decodes raw wait statuses and TRES strings", () => {
    expect(exitFromWaitStatus(256)).toEqual({ exitCode: 1, trusted: true });
    expect(exitFromWaitStatus(9)).toEqual({ signal: 9, trusted: true });
    expect(Object.fromEntries(tresFromString("cpu=4,mem=2G,node=1,billing=4,gres/gpu=2"))).toEqual({
      cpu: 4,
      mem: 2048,
      node: 1,
      billing: 4,
      "gres/gpu": 2,
    });
  });

  it("expands host lists", () => {
    expect(expandHostlist("vm")).toEqual(["vm"]);
    expect(expandHostlist("n[01-03,07],gpu1")).toEqual(["n01", "n02", "n03", "n07", "gpu1"]);
  });
});

describe("SlurmController", () => {
  let dir: string;
  let spool: DiskSpool;
  const cleanups: (() => void)[] = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-ctl-"));
    spool = await DiskSpool.open({ dir: join(dir, "spool") });
  });
  afterEach(async () => {
    await spool.close();
    for (const c of cleanups.splice(0)) c();
    rmSync(dir, { recursive: true, force: true });
  });

  async function records(): Promise<JobRecord[]> {
    return (await takeSpooled(spool)).jobs;
  }

  function controller(squeueBody: string) {
    const squeue = fakeCommand("squeue", squeueBody);
    const sacct = fakeCommand("sacct", sacctScript);
    cleanups.push(squeue.cleanup, sacct.cleanup);
    return {
      sacct,
      ctl: new SlurmController({
        cluster: "testcluster",
        spool,
        squeueCommand: squeue.path,
        sacctCommand: sacct.path,
      }),
    };
  }

  it("turns real sacct/squeue output into job records with SLURM's states, exits, limits and peaks", async () => {
    const { ctl } = controller(`cat "${SQUEUE}"`);
    await ctl.poll();
    const all = await records();
    for (const r of all) expect(validateJobRecord(r)).toMatchObject({ ok: true });
    const started = all.filter((r) => r.phase === "started").map((r) => r.jobId);
    expect(started.sort()).toEqual(["12", "6"]);
    const ended = new Map(all.filter((r) => r.phase === "ended").map((r) => [r.jobId, r]));
    expect(ended.size).toBe(12);
    const outcome = (id: string) => ended.get(id)?.outcome;
    expect(outcome("1")).toEqual({ state: "COMPLETED", exitCode: 0 });
    expect(outcome("5")).toMatchObject({ state: "FAILED", exitCode: 1 });
    expect(outcome("9")).toMatchObject({ state: "FAILED", exitCode: 3 });
    expect(outcome("6")).toEqual({ state: "TIMEOUT", exitCode: 0 });
    // FAILED 0:9 with the batch step's MaxRSS over --mem: read as the memory kill it was.
    expect(outcome("7")).toEqual({
      state: "OUT_OF_MEMORY",
      signal: 9,
      reason: "SLURM reported FAILED by signal 9 with MaxRSS above the memory limit",
    });
    // The script went on after its srun step was killed: DerivedExitCode 0:9 keeps the step's signal.
    expect(outcome("8")).toEqual({ state: "COMPLETED", exitCode: 0, derivedSignal: 9 });
    expect(outcome("10")).toEqual({ state: "CANCELLED", exitCode: 0 });

    const oom = ended.get("7")!;
    expect(oom.spec.requested).toEqual({ memoryBytes: 100 * MB, cores: 1, nodes: 1, walltimeSeconds: 180 });
    expect(oom.peaks?.memoryBytes).toBe(115_204_096);
    expect(oom.peaks!.memoryBytes!).toBeGreaterThan(oom.spec.requested.memoryBytes!);
    expect(oom.steps).toEqual([
      // sacct says CANCELLED 0:9 for the step; over its limit it reads as OUT_OF_MEMORY too.
      expect.objectContaining({
        stepId: "batch",
        state: "OUT_OF_MEMORY",
        signal: 9,
        maxRssBytes: 115_204_096,
      }),
    ]);
    const srun = ended.get("8")!;
    expect(srun.steps?.map((s) => [s.stepId, s.state, s.signal])).toEqual([
      ["batch", "COMPLETED", undefined],
      // The srun step went over --mem and was killed while the script went on.
      ["0", "OUT_OF_MEMORY", 9],
    ]);
    const tmo = ended.get("6")!;
    expect(tmo.spec.requested.walltimeSeconds).toBe(60);
    expect(tmo.peaks?.runTimeSeconds).toBe(70);
    expect(tmo.nodes).toEqual(["vm"]);
    expect(ended.get("1")!.spec.requested.walltimeSeconds).toBeUndefined();
    expect(ended.get("1")!.idempotencyKey).toBe("testcluster:1:ended");
    expect(ended.get("1")!.spec).toMatchObject({
      user: "root",
      account: "root",
      partition: "debug",
      qos: "normal",
      jobName: "first",
    });
  });

  it("asks sacct -P for exit codes the JSON misreports when squeue no longer has the job", async () => {
    const { ctl, sacct } = controller(`echo '{"jobs": []}'`);
    await ctl.poll();
    const ended = new Map((await records()).map((r) => [r.jobId, r]));
    expect(ended.get("5")?.outcome).toEqual({ state: "FAILED", exitCode: 1 });
    expect(ended.get("9")?.outcome).toEqual({ state: "FAILED", exitCode: 3 });
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(sacct.dir, "parsable-calls"), "utf8")).toContain("-j 5,9");
  });

  it("spools each job and phase once across polls", async () => {
    const { ctl } = controller(`cat "${SQUEUE}"`);
    await ctl.poll();
    const first = (await records()).length;
    await ctl.poll();
    expect(first).toBe(14);
    expect(await records()).toEqual([]);
    expect(ctl.stats()).toMatchObject({ polls: 2, failedPolls: 0, records: 14 });
  });

  it("holds an ended job back while its steps' accounting is still to come, within a grace period", async () => {
    const { readFileSync, writeFileSync } = await import("node:fs");
    const real = JSON.parse(readFileSync(SACCT, "utf8")) as { jobs: Record<string, unknown>[] };
    const tmo = real.jobs.find((j) => j.job_id === 6)!;
    // What slurmdbd holds a moment after the timeout: the job ended, its batch step not yet.
    const unsettled = structuredClone(tmo) as { steps: { state: string; tres: unknown }[] };
    unsettled.steps[0].state = "RUNNING";
    unsettled.steps[0].tres = { requested: { max: [] } };
    const current = join(dir, "sacct-now.json");
    const show = (job: unknown) => writeFileSync(current, JSON.stringify({ ...real, jobs: [job] }));
    const sacct = fakeCommand("sacct", `cat "${current}"`);
    const squeue = fakeCommand("squeue", `echo '{"jobs": []}'`);
    cleanups.push(sacct.cleanup, squeue.cleanup);
    const end = (tmo.time as { end: number }).end * 1000;
    let now = end + 5_000;
    const ctl = new SlurmController({
      cluster: "testcluster",
      spool,
      squeueCommand: squeue.path,
      sacctCommand: sacct.path,
      now: () => now,
    });
    show(unsettled);
    await ctl.poll();
    expect(await records()).toEqual([]);
    expect(ctl.stats().deferredEnds).toBe(1);
    // The step's accounting arrives: the record goes out whole, with the MaxRSS.
    show(tmo);
    now = end + 35_000;
    await ctl.poll();
    const [record] = await records();
    expect(record).toMatchObject({ jobId: "6", phase: "ended", peaks: { memoryBytes: 4_792_320 } });

    // A step that never settles does not hold its job back for good.
    const stuck = { ...structuredClone(unsettled), job_id: 66 };
    show(stuck);
    now = end + 30_000;
    await ctl.poll();
    expect(await records()).toEqual([]);
    now = end + 61_000;
    await ctl.poll();
    expect((await records()).map((r) => [r.jobId, r.outcome?.state, r.peaks?.memoryBytes])).toEqual([
      ["66", "TIMEOUT", undefined],
    ]);
  });

  it("survives a failing command without throwing and counts it", async () => {
    const { ctl } = controller(
      `echo "slurm_load_jobs error: Unable to contact slurm controller" >&2; exit 1`,
    );
    await expect(ctl.poll()).resolves.toBeUndefined();
    expect(ctl.stats().failedPolls).toBe(1);
  });
});
