import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTrainCommand } from "../../../src/intelligence/training/train-command.js";
import { type IntelligenceFixture, importLanlJobs, openIntelligenceFixture } from "./intelligence-fixture.js";

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let out = "";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    return { code: await runTrainCommand(args), out };
  } finally {
    process.stdout.write = write;
  }
}

describe("jobsight-server train", () => {
  let f: IntelligenceFixture;
  let dataDir: string;

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-cli", 1500);
    dataDir = await mkdtemp(join(tmpdir(), "jobsight-cli-"));
  });

  afterAll(async () => {
    await f?.dispose();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("trains on the database's jobs, stores the model in the configured object store and lists it", async () => {
    const common = ["--database-url", f.fx.db.url, "--data-dir", dataDir];
    const trained = await run([...common, "--json"]);
    expect(trained.code).toBe(0);
    const report = JSON.parse(trained.out);
    expect(report).toMatchObject({ trained: true, accepted: true, jobs: 1500 });
    const listed = await run([...common, "--list", "--json"]);
    const models = JSON.parse(listed.out);
    expect(models).toEqual([
      expect.objectContaining({ version: report.version, status: "active", trigger: "cli" }),
    ]);
    expect((await run([...common, "--rollback"])).code).toBe(1);

    const none = await run([...common, "--recalibrate"]);
    expect(none).toEqual({
      code: 1,
      out: "nothing recalibrated: 0 jobs ended since the last calibration (50 needed)\n",
    });
    await importLanlJobs(f, "intel-cli", 1500, 300);
    const recalibrated = await run([...common, "--recalibrate", "--json"]);
    expect(recalibrated.code).toBe(0);
    expect(JSON.parse(recalibrated.out)).toMatchObject({
      recalibrated: true,
      from: report.version,
      version: `${report.version}.c1`,
    });
    const after = JSON.parse((await run([...common, "--list", "--json"])).out);
    expect(after[0]).toMatchObject({
      version: `${report.version}.c1`,
      status: "active",
      trigger: "recalibration",
    });
  });
});
