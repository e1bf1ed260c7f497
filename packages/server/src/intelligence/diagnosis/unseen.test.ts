import type { NodeEvent } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import type { DiagnosisInput } from "./input.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";

const NOW = "2026-12-01T00:00:00Z";
/** The healthy CPU job 9300 on cn100 (08:00 to 09:30), sampled throughout, with `events`. */
const healthyWith = (events: NodeEvent[]): DiagnosisInput => ({
  ...structuredClone(diagnosisScenarios.find((s) => s.name === "healthy-cpu")!.input),
  events,
});
// What the node collector sends for each job when it does not read the kernel log.
const unread = (jobId: string, message = "not watched: the collector runs with --kmsg false"): NodeEvent => ({
  cluster: "hpc1",
  node: "cn100",
  time: "2026-11-17T08:00:10Z",
  kind: "source_unavailable",
  source: "kmsg",
  jobId,
  message,
  idempotencyKey: `kmsg-unread:cn100:${jobId}`,
});
const unseenOf = (i: DiagnosisInput) => diagnose(i, { now: NOW }).unseen;

describe("the kernel log in unseen", () => {
  it("is listed for a job whose node collector said it does not read the kernel log", () => {
    expect(unseenOf(healthyWith([unread("9300")]))).toEqual([
      {
        source: "kernel-log",
        reason:
          "The kernel log of cn100 was not read (not watched: the collector runs with --kmsg false): OOM kills and GPU Xid errors there would not be seen.",
        window: { start: "2026-11-17T08:00:00Z", end: "2026-11-17T09:30:00Z" },
      },
    ]);
    const denied = unread("9300", "cannot read the kernel log /dev/kmsg: EPERM");
    expect(unseenOf(healthyWith([denied]))[0].reason).toContain("was not read (cannot read the kernel log");
  });

  it("is not listed for a node whose collector reads it", () => {
    expect(unseenOf(healthyWith([]))).toEqual([]);
  });

  it("is listed for a job the collector never saw, on another job's notice from the node in its window", () => {
    const i = { ...healthyWith([unread("9301")]), samples: [] };
    expect(unseenOf(i).find((u) => u.source === "kernel-log")?.reason).toContain(
      "cn100 was not read (not watched",
    );
  });

  it("makes a failed job's claim say the kernel log was not read, not that it could not be", () => {
    const i = healthyWith([unread("9300")]);
    i.record.outcome = { state: "FAILED", exitCode: 1 };
    const claim = diagnose(i, { now: NOW }).findings.find((f) => f.kind === "job_error")?.claim;
    expect(claim).toContain(
      "The kernel log of cn100 was not read, so a kill or fault there may have gone unseen.",
    );
  });
});
