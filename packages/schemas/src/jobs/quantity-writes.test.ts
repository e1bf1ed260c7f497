import { describe, expect, it } from "vitest";
import { parseQuantity } from "./quantity.js";
import { planQuantityWrites } from "./quantity-writes.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

// Properties over random containers and targets are in the server
// (schedulers/kubernetes/container-resources.property.test.ts) and the SDK
// (submissions/kubernetes/edit-manifest.property.test.ts): fast-check is not a dependency here.
describe("planQuantityWrites", () => {
  it("writes the request alone when there is nothing else, and nothing when it already holds the target", () => {
    expect(planQuantityWrites("memory", {}, 2 * GiB)).toEqual([{ section: "requests", value: "2Gi" }]);
    expect(planQuantityWrites("cores", { request: "2" }, 3)).toEqual([{ section: "requests", value: "3" }]);
    expect(planQuantityWrites("cores", { request: "2" }, 2)).toEqual([]);
    expect(planQuantityWrites("cores", { request: 2 }, 2)).toEqual([]);
  });

  it("keeps a request equal to its limit equal, in each one's own unit", () => {
    expect(planQuantityWrites("memory", { request: "8Gi", limit: "8Gi" }, 6 * GiB)).toEqual([
      { section: "requests", value: "6Gi" },
      { section: "limits", value: "6Gi" },
    ]);
    expect(planQuantityWrites("cores", { request: "2", limit: "2000m" }, 3)).toEqual([
      { section: "requests", value: "3" },
      { section: "limits", value: "3000m" },
    ]);
  });

  it("gives an equal pair the larger amount when one unit cannot carry the target exactly", () => {
    // 6e8 bytes is 600M but not whole in G: the G side gets 573Mi, so both do (never below 6e8).
    const writes = planQuantityWrites("memory", { request: "1G", limit: "1000M" }, 6e8);
    expect(writes).toEqual([
      { section: "requests", value: "573Mi" },
      { section: "limits", value: "573Mi" },
    ]);
    expect(parseQuantity("573Mi")).toBeGreaterThan(6e8);
    const mixed = planQuantityWrites("memory", { request: "1Gi", limit: "1024Mi" }, 600 * MiB + 1);
    expect(mixed).toEqual([
      { section: "requests", value: "601Mi" },
      { section: "limits", value: "601Mi" },
    ]);
  });

  it("moves the request of a burstable container and raises its limit only when the request would pass it", () => {
    expect(planQuantityWrites("memory", { request: "8Gi", limit: "16Gi" }, 12 * GiB)).toEqual([
      { section: "requests", value: "12Gi" },
    ]);
    expect(planQuantityWrites("memory", { request: "8Gi", limit: "16Gi" }, 20 * GiB)).toEqual([
      { section: "requests", value: "20Gi" },
      { section: "limits", value: "20Gi" },
    ]);
    expect(planQuantityWrites("memory", { request: "8Gi", limit: "16Gi" }, 8 * GiB)).toEqual([]);
  });

  it("keeps a limit alone alone", () => {
    expect(planQuantityWrites("cores", { limit: "500m" }, 0.75)).toEqual([
      { section: "limits", value: "750m" },
    ]);
    expect(planQuantityWrites("cores", { limit: "500m", request: null }, 0.5)).toEqual([]);
  });

  it("sets GPUs in limits, and in requests too when they are there", () => {
    expect(planQuantityWrites("gpus", {}, 2)).toEqual([{ section: "limits", value: "2" }]);
    expect(planQuantityWrites("gpus", { request: "4" }, 1)).toEqual([
      { section: "limits", value: "1" },
      { section: "requests", value: "1" },
    ]);
    expect(planQuantityWrites("gpus", { request: 4, limit: 4 }, 4)).toEqual([]);
    expect(planQuantityWrites("gpus", { limit: "4" }, 1.2)).toEqual([{ section: "limits", value: "2" }]);
  });

  it("adds no GPU key for zero GPUs, but writes zero over one that is there", () => {
    expect(planQuantityWrites("gpus", {}, 0)).toEqual([]);
    expect(planQuantityWrites("gpus", { limit: "1" }, 0)).toEqual([{ section: "limits", value: "0" }]);
  });

  it("writes over a quantity that is not one (a template placeholder) by the rules of formatQuantity", () => {
    expect(planQuantityWrites("memory", { request: "{{inputs.parameters.mem}}" }, 1.5 * GiB)).toEqual([
      { section: "requests", value: "1536Mi" },
    ]);
  });
});
