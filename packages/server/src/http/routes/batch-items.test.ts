import { apiRoutes, compileValidator } from "@jobsight/schemas";
import type { TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { ForbiddenError, JobsightError } from "../../errors.js";
import { BatchItems } from "./batch-items.js";

const route = (operationId: string) => apiRoutes.find((r) => r.operationId === operationId)!;
const itemsOf = (operationId: string) => {
  const r = route(operationId);
  return BatchItems.of(r, compileValidator(r.body as TSchema));
};
const event = (message: string) => ({
  cluster: "hpc1",
  node: "n1",
  time: "2026-12-01T10:00:00Z",
  kind: "oom_kill",
  message,
});

describe("BatchItems", () => {
  it("takes the ingest routes' batches item by item, and no other route's body", () => {
    expect(itemsOf("ingestJobRecords")?.key).toBe("records");
    expect(itemsOf("ingestUsage")?.key).toBe("samples");
    expect(itemsOf("ingestNodeEvents")?.key).toBe("events");
    const others = apiRoutes.filter((r) => r.body && r.response?.$id !== "IngestResult");
    expect(others.length).toBeGreaterThan(0);
    for (const r of others) expect(BatchItems.of(r, compileValidator(r.body as TSchema))).toBeUndefined();
  });

  it("keeps the valid items in order and names each field of the others by the item's index", () => {
    const split = itemsOf("ingestNodeEvents")!.split({
      events: [event("a"), { ...event(""), kind: "meteor" }, event("c"), event("d\u0000")],
    });
    expect(split?.body).toEqual({ events: [event("a"), event("c")] });
    expect(split?.kept).toEqual([0, 2]);
    expect(split?.rejected.map((r) => [r.index, r.path, r.code])).toEqual([
      [1, "/events/1/kind", "VALIDATION_FAILED"],
      [1, "/events/1/message", "VALIDATION_FAILED"],
      [3, "/events/3/message", "VALIDATION_FAILED"],
    ]);
    expect(split?.rejected[2].message).toMatch(/NUL/);
  });

  it("leaves the whole batch to be refused when its envelope is wrong or no item is valid", () => {
    const items = itemsOf("ingestNodeEvents")!;
    const bad = { ...event("x"), kind: "meteor" };
    expect(items.split({ events: [event("a"), bad], extra: 1 })).toBeUndefined();
    expect(items.split({ events: [bad, bad] })).toBeUndefined();
    expect(items.split({ events: [] })).toBeUndefined();
    expect(items.split({ events: [event("a")] })).toBeUndefined();
    const usage = itemsOf("ingestUsage")!;
    expect(
      usage.split({ idempotencyKey: "k\u0000ey-0001", samples: [{}, { cluster: "c" }] }),
    ).toBeUndefined();
  });

  it("names a refused item of the kept ones by its position in the batch as sent", () => {
    const items = itemsOf("ingestJobRecords")!;
    const split = { body: {}, rejected: [], kept: [1, 4, 12] };
    const forbidden = new ForbiddenError("no", [
      { path: "/records/2/cluster", message: "must be hpc1" },
      { path: "/records/0", message: "x" },
      { path: "/query/cluster", message: "y" },
    ]);
    const moved = items.inBatchPositions(forbidden, split) as JobsightError;
    expect(moved).toBeInstanceOf(JobsightError);
    expect(moved.toApiError()).toEqual({
      ...forbidden.toApiError(),
      errors: [
        { path: "/records/12/cluster", message: "must be hpc1" },
        { path: "/records/1", message: "x" },
        { path: "/query/cluster", message: "y" },
      ],
    });
    const plain = new Error("boom");
    expect(items.inBatchPositions(plain, split)).toBe(plain);
  });
});
