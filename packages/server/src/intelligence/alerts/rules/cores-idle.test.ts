import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "../alert-thresholds.js";
import { coresIdle } from "./cores-idle.js";
import { liveJob, series } from "./series-fixture.js";

/** CPU time of a cgroup growing at `cores` cores from 1000 s. */
const cpu = (cores: number, limitCores?: number) => (m: number) => ({
  cpu: {
    usageSeconds: 1000 + m * 60 * cores,
    userSeconds: 900 + m * 60 * cores,
    ...(limitCores ? { limitCores } : {}),
  },
});

describe("cores-idle", () => {
  it("fires when the job used less than the threshold of its reserved cores for the period", () => {
    // 8 cores reserved, 0.4 used (5%) on two nodes together.
    const job = liveJob(
      [
        ...series({ minutes: 40, node: "n1", at: cpu(0.3) }),
        ...series({ minutes: 40, node: "n2", at: cpu(0.1) }),
      ],
      { requestedCores: 8 },
    );
    const verdict = coresIdle.evaluate(job, T);
    if (verdict.holds !== true) throw new Error(`expected to fire: ${JSON.stringify(verdict)}`);
    expect(verdict.message).toBe(
      "The job used 0.40 of its 8 reserved cores (5.0%) over the last 30 min, below 10%: reserved and idle.",
    );
    expect(verdict.evidence.map((e) => [e.kind, e.source, e.field, e.node, e.values?.length])).toEqual([
      ["metric", "cgroup:cpu.stat", "usage_usec", "n1", 31],
      ["metric", "cgroup:cpu.stat", "usage_usec", "n2", 31],
      ["scheduler", "job-record", undefined, undefined, 1],
    ]);
    expect(verdict.evidence[0].text).toBe("CPU time on n1 rose by 540.0 s in 30 min");
  });

  it("counts the whole job's cgroup, not its steps as well, and takes cpu.max without a request", () => {
    const job = liveJob([
      ...series({ minutes: 30, at: cpu(1.5, 4) }),
      ...series({ minutes: 30, step: "0", at: cpu(1.5, 4) }),
    ]);
    // 1.5 of 4 cores (37.5%): not idle; counting the step too would not change that, but would double it.
    expect(coresIdle.evaluate(job, T)).toEqual({ holds: false });
    const quiet = liveJob([
      ...series({ minutes: 30, at: cpu(0.2, 4) }),
      ...series({ minutes: 30, step: "0", at: cpu(0.2, 4) }),
    ]);
    const verdict = coresIdle.evaluate(quiet, T);
    expect(verdict.holds === true && verdict.message).toContain("used 0.20 of its 4 reserved cores (5.0%)");
  });

  it("resolves when the job gets busy, and does not judge a short or unreserved run", () => {
    const idleThenBusy = liveJob(series({ minutes: 60, at: (m) => cpu(m < 45 ? 0.1 : 8)(m) }), {
      requestedCores: 8,
    });
    expect(coresIdle.evaluate(idleThenBusy, T)).toEqual({ holds: false });
    const short = liveJob(series({ minutes: 20, at: cpu(0) }), { requestedCores: 8 });
    expect(coresIdle.evaluate(short, T).holds).toBe("unknown");
    const unreserved = liveJob(series({ minutes: 40, at: cpu(0) }));
    expect(coresIdle.evaluate(unreserved, T)).toEqual({ holds: "unknown", reason: "reserved cores unknown" });
  });
});
