import { describe, expect, it } from "vitest";
import { checkPolicy } from "./check-policy.js";

const GiB = 2 ** 30;

describe("checkPolicy", () => {
  it("reports floors above caps and node capacity, and duplicate partitions, all at once", () => {
    const problems = checkPolicy({
      name: "p",
      floors: { memory: 8 * GiB },
      caps: { memory: 4 * GiB },
      partitions: [
        { partition: "gpu", floors: { gpus: 2 }, nodeCapacity: { gpus: 1 } },
        { partition: "gpu" },
        { partition: "small", caps: { cores: 1 } },
        { partition: "big", floors: { cores: 4 } },
      ],
    });
    expect(problems).toEqual([
      { path: "/floors/memory", message: `floor ${8 * GiB} is above the cap ${4 * GiB} (/caps/memory)` },
      {
        path: "/partitions/0/floors/gpus",
        message: "floor 2 is above the node capacity 1 (/partitions/0/nodeCapacity/gpus)",
      },
      { path: "/partitions/1/partition", message: "partition gpu is listed twice" },
    ]);
  });

  it("lets a global floor meet a partition's cap, but not two partitions' rules meet", () => {
    const problems = checkPolicy({
      name: "p",
      floors: { cores: 8 },
      partitions: [
        { partition: "small", caps: { cores: 4 } },
        { partition: "big", floors: { walltime: 7200 } },
        { partition: "short", caps: { walltime: 3600 } },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual(["/floors/cores"]);
  });

  it("reports a resource both left alone and never lowered", () => {
    expect(checkPolicy({ name: "p", leaveAlone: ["gpus"], neverLower: ["gpus"] })).toEqual([
      { path: "/neverLower", message: "gpus is also in leaveAlone, which already keeps it as requested" },
    ]);
  });

  it("writes amounts the way the caller asks", () => {
    const [problem] = checkPolicy(
      { name: "p", floors: { memory: 8 * GiB }, caps: { memory: 4 * GiB } },
      { formatAmount: (resource, value) => (resource === "memory" ? `${value / GiB} GiB` : String(value)) },
    );
    expect(problem.message).toBe("floor 8 GiB is above the cap 4 GiB (/caps/memory)");
  });

  it("finds nothing wrong with a consistent policy", () => {
    expect(
      checkPolicy({ name: "p", floors: { memory: GiB }, caps: { memory: 2 * GiB }, neverLower: ["gpus"] }),
    ).toEqual([]);
  });
});
