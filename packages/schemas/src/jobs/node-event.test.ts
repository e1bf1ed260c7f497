import { describe, expect, it } from "vitest";
import { validateNodeEvent } from "../validators.js";
import type { NodeEvent } from "./node-event.js";

// What a node collector reading GPUs through dcgm-exporter sends for a job that got GPU readings.
const limits: NodeEvent = {
  cluster: "hpc1",
  node: "gpu07",
  time: "2026-12-01T10:00:00.000Z",
  kind: "source_limits",
  jobId: "4242",
  source: "dcgm-exporter",
  sourceLimits: {
    reads: "gpu",
    cannotSee: ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"],
  },
  message: "dcgm-exporter cannot see: processes on each GPU; GPUs lost from the bus (nvidia-smi's view)",
  idempotencyKey: "source-limits:dcgm-exporter:gpu07:4242",
};

describe("a source_limits node event", () => {
  it("is valid with the source, what it is read for and what it cannot see", () => {
    expect(validateNodeEvent(limits)).toEqual({ ok: true, value: limits });
  });

  it("rejects an empty list, an empty entry, more than 16 entries and an unknown reading", () => {
    const bad = (sourceLimits: unknown) => validateNodeEvent({ ...limits, sourceLimits });
    const paths = (r: ReturnType<typeof validateNodeEvent>) => (r.ok ? [] : r.errors.map((e) => e.path));
    expect(paths(bad({ reads: "gpu", cannotSee: [] }))).toContain("/sourceLimits/cannotSee");
    expect(paths(bad({ reads: "gpu", cannotSee: [""] }))).toContain("/sourceLimits/cannotSee/0");
    expect(paths(bad({ reads: "gpu", cannotSee: Array.from({ length: 17 }, (_, i) => `x${i}`) }))).toContain(
      "/sourceLimits/cannotSee",
    );
    expect(paths(bad({ reads: "gpu", cannotSee: ["x".repeat(257)] }))).toContain("/sourceLimits/cannotSee/0");
    expect(paths(bad({ reads: "network", cannotSee: ["x"] }))).toContain("/sourceLimits/reads");
    expect(paths(bad({ reads: "gpu", cannotSee: ["x"], extra: 1 }))).toContain("/sourceLimits/extra");
  });
});
