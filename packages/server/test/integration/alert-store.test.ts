import type { EvidenceRef } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FiringAlert } from "../../src/data-plane/stores/alert-store.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";

const evidence: EvidenceRef[] = [
  { kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "idle" },
];
const idle = (jobId: string, message = "GPUs idle"): FiringAlert => ({
  cluster: "hpc1",
  jobId,
  user: "alice",
  rule: "gpus-idle",
  severity: "warning",
  message,
  evidence,
});
const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 10, minute));

describe("AlertStore", () => {
  let fx: StorageFixture;
  beforeAll(async () => {
    fx = await openTestStorage("alert_store");
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("keeps one row per job and rule, fires it anew after it resolved, and delivers each episode once", async () => {
    const alerts = fx.storage.alerts;
    expect(await alerts.fire([idle("1"), idle("2")], at(0))).toBe(2);
    expect(await alerts.fire([idle("1", "GPUs still idle")], at(1))).toBe(0);
    const [one] = await alerts.list({ cluster: "hpc1", state: "firing", limit: 1 });
    expect(one).toMatchObject({
      jobId: "1",
      message: "GPUs still idle",
      firstSeen: at(0).toISOString(),
      lastSeen: at(1).toISOString(),
    });

    // Fired together: oldest episode first, then by id.
    const pending = (await alerts.undelivered(["chan-a"])).find((a) => a.jobId === "1")!;
    expect(pending).toMatchObject({ jobId: "1", firedAt: at(0).toISOString(), deliveredTo: [] });
    await alerts.markDelivered(pending.id, pending.firedAt, "chan-a");
    await alerts.markDelivered(pending.id, pending.firedAt, "chan-a");
    expect((await alerts.undelivered(["chan-a"])).map((a) => a.jobId)).toEqual(["2"]);
    const both = await alerts.undelivered(["chan-a", "chan-b"]);
    expect(both.map((a) => [a.jobId, a.deliveredTo]).sort()).toEqual([
      ["1", ["chan-a"]],
      ["2", []],
    ]);

    expect(await alerts.resolve([one.id], at(2))).toBe(1);
    expect(await alerts.resolve([one.id], at(3))).toBe(0);
    expect((await alerts.list({ state: "resolved", limit: 10 })).map((a) => [a.jobId, a.resolvedAt])).toEqual(
      [["1", at(2).toISOString()]],
    );
    // A new episode: the same row firing again, to be told again; a late mark of the old one is void.
    await alerts.fire([idle("1")], at(5));
    await alerts.markDelivered(one.id, at(0).toISOString(), "chan-b");
    const again = (await alerts.undelivered(["chan-a"])).find((a) => a.jobId === "1");
    expect(again).toMatchObject({
      id: one.id,
      firstSeen: at(0).toISOString(),
      firedAt: at(5).toISOString(),
      deliveredTo: [],
    });
    expect(again?.resolvedAt).toBeUndefined();
    const { rows } = await fx.storage.pool.query("SELECT count(*)::int AS n FROM alerts");
    expect(rows[0].n).toBe(2);
  });

  it("lists by user, state and cluster, most recently seen first, within the limit", async () => {
    const alerts = fx.storage.alerts;
    await alerts.fire([{ ...idle("9"), user: "bob", cluster: "hpc2" }], at(9));
    expect((await alerts.list({ user: "bob", limit: 10 })).map((a) => a.jobId)).toEqual(["9"]);
    expect((await alerts.list({ cluster: "hpc1", limit: 10 })).map((a) => a.jobId)).toEqual(["1", "2"]);
    expect((await alerts.list({ limit: 1 })).map((a) => a.jobId)).toEqual(["9"]);
  });
});
