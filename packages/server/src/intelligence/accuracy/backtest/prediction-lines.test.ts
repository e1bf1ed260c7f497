import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPredictionFile } from "./prediction-lines.js";

describe("openPredictionFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-prediction-lines-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates the file readable by its owner only, whatever the umask", async () => {
    const path = join(dir, "predictions.jsonl");
    const previous = process.umask(0o000);
    try {
      const file = openPredictionFile(path);
      await file.close();
    } finally {
      process.umask(previous);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("narrows a file that already exists before writing job data into it", async () => {
    const path = join(dir, "predictions.jsonl");
    await writeFile(path, "old\n", { mode: 0o644 });
    const file = openPredictionFile(path);
    file.sink({
      job: "42",
      resource: "memory",
      status: "recommended",
      value: 1,
      low: 1,
      high: 2,
      confidence: 0.9,
      actual: 1,
      censored: false,
      request: 4,
      modelVersion: "bt-1",
    });
    await file.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
