import { describe, expect, it } from "vitest";
import type { HistoryJob } from "../history-job.js";
import { resourceSpec } from "../resources.js";
import { buildFeatureTable } from "./feature-table.js";

function jobs(n: number): HistoryJob[] {
  return Array.from({ length: n }, (_, i) => ({
    id: String(i),
    submitTime: i * 60,
    startTime: i * 60,
    endTime: i * 60 + 30 + (i % 7) * 100,
    user: `u${i % 3}`,
    executable: `x${i % 4}`,
    requested: { cores: 1 + (i % 5), walltimeSeconds: 3600, memoryBytes: 2 ** 31 },
    used: { memoryBytes: (1 + (i % 9)) * 2 ** 27, cores: 1 + (i % 3), walltimeSeconds: 30 + (i % 7) * 100 },
    outcome: i % 11 === 0 ? "timeout" : "completed",
  }));
}

describe("buildFeatureTable", () => {
  it("writes into a reused table exactly the table it would allocate", () => {
    const history = jobs(400);
    const memory = buildFeatureTable(history, resourceSpec("memory"));
    const fresh = buildFeatureTable(history, resourceSpec("walltime"));
    const reused = buildFeatureTable(history, resourceSpec("walltime"), { reuse: memory });
    expect(reused.x).toBe(memory.x);
    expect(reused.resource).toBe("walltime");
    for (const key of Object.keys(fresh) as (keyof typeof fresh)[]) {
      const a = fresh[key];
      const b = reused[key];
      if (ArrayBuffer.isView(a))
        expect(Array.from(b as Float64Array), key).toEqual(Array.from(a as Float64Array));
      else expect(b, key).toEqual(a);
    }
  });
});
