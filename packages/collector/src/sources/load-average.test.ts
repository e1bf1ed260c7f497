import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SourceFormatError } from "../errors.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { parseLoadAverage, readLoadAverage } from "./load-average.js";

describe("parseLoadAverage", () => {
  it("reads the three averages, the running and existing tasks as fs/proc/loadavg.c prints them", () => {
    expect(parseLoadAverage("0.75 0.60 0.52 3/412 12345\n")).toEqual({
      load1: 0.75,
      load5: 0.6,
      load15: 0.52,
      running: 3,
      total: 412,
    });
    // A loaded 128-core node, and a fresh pid namespace whose last pid is still -1.
    expect(parseLoadAverage("131.07 96.40 40.12 129/2211 -1\n")).toMatchObject({
      load1: 131.07,
      running: 129,
    });
  });

  it("refuses what the kernel does not write, naming the file and what it read", () => {
    for (const text of ["", "0.75 0.60 0.52\n", "0.75 0.60 0.52 3 412 12345\n", "high 0.60 0.52 3/412 1\n"]) {
      expect(() => parseLoadAverage(text, "/host/proc/loadavg")).toThrow(SourceFormatError);
    }
    try {
      parseLoadAverage("0.75,0.60,0.52 3/412 1\n", "/host/proc/loadavg");
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "SOURCE_MALFORMED", path: "/host/proc/loadavg" });
      expect((error as Error).message).toMatch(/^\/host\/proc\/loadavg: expected .* got "0\.75,0\.60/);
    }
  });
});

describe("readLoadAverage", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("reads loadavg under the configured proc root", () => {
    const proc = new ProcTree();
    dirs.push(proc.root);
    proc.setLoadAverage({ one: 12.5, running: 14, total: 900 });
    expect(readLoadAverage(proc.root)).toEqual({
      load1: 12.5,
      load5: 12.5,
      load15: 12.5,
      running: 14,
      total: 900,
    });
  });

  it("gives nothing for a procfs without loadavg, and a clear error for a garbled one", () => {
    const root = mkdtempSync(join(tmpdir(), "jobsight-loadavg-"));
    dirs.push(root);
    expect(readLoadAverage(root)).toBeUndefined();
    writeFileSync(join(root, "loadavg"), "0.75 0.60\n");
    expect(() => readLoadAverage(root)).toThrow(`${root}/loadavg: expected`);
  });
});
