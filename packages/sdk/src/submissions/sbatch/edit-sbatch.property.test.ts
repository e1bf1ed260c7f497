import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ResourceTargets } from "../edit-plan.js";
import { dominantEol, splitLines } from "../text-lines.js";
import { editSbatch } from "./edit-sbatch.js";
import { analyseSbatch, parseSbatch } from "./parse-sbatch.js";

const GiB = 2 ** 30;
const ctx = { cluster: "hpc1", user: "alice" };
const count = fc.constantFrom(1, 2, 4);

// One way of writing an option, as people write them.
const form = (long: string, short: string | undefined, value: string) =>
  fc.constantFrom(
    `--${long}=${value}`,
    `--${long} ${value}`,
    `--${long}="${value}"`,
    ...(short ? [`-${short} ${value}`, `-${short}${value}`] : []),
  );

const memoryValue = fc.oneof(
  fc.integer({ min: 1, max: 256 }).map((n) => `${n}G`),
  fc.integer({ min: 1, max: 64 }).map((n) => `${n * 64}M`),
  fc.integer({ min: 1, max: 64 }).map((n) => `${n * 1024}`),
);
const timeValue = fc.oneof(
  fc.integer({ min: 1, max: 5000 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${h}:${String(m).padStart(2, "0")}:00`),
  fc.tuple(fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 23 })).map(([d, h]) => `${d}-${h}`),
  fc
    .tuple(fc.integer({ min: 0, max: 13 }), fc.integer({ min: 1, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([d, h, m]) => `${d}-${h}:${m}`),
  fc
    .tuple(fc.integer({ min: 1, max: 13 }), fc.integer({ min: 0, max: 23 }))
    .map(([d, h]) => `${d}-${String(h).padStart(2, "0")}:00:00`),
);

/** A script's resource options, each optional, with the GPU and memory styles people use. */
const optionsArb = (withPerTask: boolean) =>
  fc
    .record(
      {
        nodes: count.chain((n) => form("nodes", "N", String(n))),
        ntasks: count.chain((n) => form("ntasks", "n", String(n))),
        perNode: count.chain((n) => form("ntasks-per-node", undefined, String(n))),
        cpus: count.chain((n) => form("cpus-per-task", "c", String(n))),
        gpu: fc.oneof(
          count.chain((n) => form("gres", undefined, `gpu:${n}`)),
          count.chain((n) => form("gres", undefined, `shard:1,gpu:a100:${n}`)),
          count.chain((n) => form("gpus", "G", `v100:${n}`)),
          count.chain((n) => form("gpus-per-node", undefined, String(n))),
          ...(withPerTask ? [count.chain((n) => form("gpus-per-task", undefined, String(n)))] : []),
        ),
        memory: fc.oneof(
          memoryValue.chain((v) => form("mem", undefined, v)),
          memoryValue.chain((v) => form("mem-per-cpu", undefined, v)),
        ),
        time: timeValue.chain((v) => form("time", "t", v)),
        other: fc.constantFrom(
          "--job-name=train",
          "-J x",
          "--output=%x-%j.out",
          '--comment="a # b"',
          "--exclusive",
          "-p gpu",
        ),
      },
      { requiredKeys: [] },
    )
    .map((o) => Object.values(o) as string[]);

const noise = fc.constantFrom("# a comment", "", "   ", "# SBATCH --mem=999G", "##SBATCH -c 99");

/** A whole script: shebang, directive lines (1-3 options each, maybe a trailing comment), noise, commands. */
const scriptArb = (withPerTask: boolean) =>
  fc
    .record({
      shebang: fc.boolean(),
      options: optionsArb(withPerTask).chain((opts) =>
        fc.shuffledSubarray(opts, { minLength: opts.length, maxLength: opts.length }),
      ),
      perLine: fc.integer({ min: 1, max: 3 }),
      trailing: fc.constantFrom("", "  # note", "\t#x"),
      noise: fc.array(noise, { maxLength: 3 }),
      eol: fc.constantFrom("\n", "\r\n"),
      finalEol: fc.boolean(),
      body: fc.constantFrom<string[]>(
        ["module load cuda", "srun python train.py"],
        ["./run.sh", "#SBATCH --mem=1G"],
        [],
      ),
    })
    .map((s) => {
      const lines: string[] = s.shebang ? ["#!/bin/bash"] : [];
      for (let i = 0; i < s.options.length; i += s.perLine) {
        lines.push(`#SBATCH ${s.options.slice(i, i + s.perLine).join(" ")}${s.trailing}`);
        if (s.noise[i]) lines.push(s.noise[i]);
      }
      lines.push(...s.body);
      const text = lines.join(s.eol) + (s.finalEol && lines.length > 0 ? s.eol : "");
      return text;
    });

/** Check that only `#SBATCH` lines changed or were added, and every other line is byte-identical. */
function assertOnlyDirectivesChanged(
  before: string,
  after: string,
  changes: ReturnType<typeof editSbatch>["changes"],
) {
  const added = new Set(changes.filter((c) => c.before === undefined).map((c) => c.line - 1));
  const a = splitLines(before);
  const b = splitLines(after).filter((_, i) => !added.has(i));
  for (const i of added) {
    const line = splitLines(after)[i];
    expect(line.text.startsWith("#SBATCH ")).toBe(true);
    expect(["", dominantEol(before)]).toContain(line.eol);
  }
  expect(b).toHaveLength(a.length);
  a.forEach((line, i) => {
    const same =
      line.text === b[i].text &&
      (line.eol === b[i].eol || (line.eol === "" && i === a.length - 1 && added.size > 0));
    if (!same) {
      expect(line.text.startsWith("#SBATCH")).toBe(true);
      expect(changes.some((c) => c.before === line.text)).toBe(true);
    }
  });
}

describe("editSbatch properties", () => {
  it("parse(edit(x)) has the new values, and only resource lines change", () => {
    const targets = fc.record(
      {
        memory: fc.integer({ min: 1, max: 16 }).map((k) => k * 64 * GiB),
        cores: fc.constantFrom(16, 32, 64),
        gpus: fc.constantFrom(0, 4, 8),
        walltime: fc.integer({ min: 1, max: 30 * 1440 }).map((m) => m * 60),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(scriptArb(false), targets, (script, t: ResourceTargets) => {
        const before = parseSbatch(script, ctx);
        const result = editSbatch(script, t);
        const after = parseSbatch(result.text, ctx);
        expect(after.warnings).toEqual(before.warnings);
        const was = before.spec.requested;
        const now = after.spec.requested;
        expect(now.walltimeSeconds).toBe(t.walltime ?? was.walltimeSeconds);
        expect(now.cores).toBe(t.cores ?? was.cores);
        const noGpuOption = was.gpus === undefined;
        // Without a target a line is never edited; a per-task or per-CPU one then follows the count.
        const [lineWas, lineNow] = [analyseSbatch(script), analyseSbatch(result.text)];
        if (t.gpus === undefined) expect(lineNow.gpuOption?.value).toBe(lineWas.gpuOption?.value);
        else expect(now.gpus).toBe(t.gpus === 0 && noGpuOption ? was.gpus : t.gpus);
        if (t.memory === undefined) expect(lineNow.memoryOption?.value).toBe(lineWas.memoryOption?.value);
        else expect(now.memoryBytes).toBe(t.memory);
        expect(now.nodes).toBe(was.nodes);
        expect(now.gpuModel).toBe(was.gpuModel);
        expect({ ...after.spec, requested: undefined }).toEqual({ ...before.spec, requested: undefined });
        assertOnlyDirectivesChanged(script, result.text, result.changes);
        expect(editSbatch(result.text, t).changes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("never asks for less than the target, whatever the layout and value", () => {
    const targets = fc.record(
      {
        memory: fc.integer({ min: 1, max: 2 ** 40 }),
        cores: fc.integer({ min: 1, max: 200 }),
        gpus: fc.integer({ min: 1, max: 16 }),
        walltime: fc.integer({ min: 1, max: 40 * 86_400 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(scriptArb(true), targets, (script, t: ResourceTargets) => {
        const result = editSbatch(script, t);
        const now = parseSbatch(result.text, ctx).spec.requested;
        if (t.memory !== undefined) expect(now.memoryBytes).toBeGreaterThanOrEqual(t.memory);
        if (t.cores !== undefined) expect(now.cores).toBeGreaterThanOrEqual(t.cores);
        if (t.gpus !== undefined) expect(now.gpus).toBeGreaterThanOrEqual(t.gpus);
        if (t.walltime !== undefined) expect(now.walltimeSeconds).toBeGreaterThanOrEqual(t.walltime);
        assertOnlyDirectivesChanged(script, result.text, result.changes);
      }),
      { numRuns: 300 },
    );
  });
});
