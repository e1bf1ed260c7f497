import { randomUUID } from "node:crypto";
import type { JobSpec, Prediction, ResourcePrediction } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insertPredictionRows,
  predictionRows,
  type RecordedPrediction,
  scoredOutcome,
} from "../../../src/data-plane/stores/prediction-store.js";
import { linkKeyOf } from "../../../src/intelligence/recording/link-predictions.js";
import { PredictionRecorder } from "../../../src/intelligence/recording/prediction-recorder.js";
import { AnswerJson } from "../../../src/intelligence/serving/answer-json.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";

const spec: JobSpec = {
  cluster: "alpha",
  scheduler: "slurm",
  user: "ada",
  partition: "gpu",
  requested: { memoryBytes: 8 * 2 ** 30, cores: 4 },
};

/** A recorded prediction as the service makes one; `key` is the sender's idempotency key. */
function recorded(key?: string): RecordedPrediction {
  const resources: ResourcePrediction[] = [
    {
      resource: "memory",
      status: "ok",
      unit: "bytes",
      value: 3 * 2 ** 30,
      low: 2 ** 30,
      high: 2 * 2 ** 30,
      confidence: 0.97,
      nominalLevel: 0.9,
      requested: 8 * 2 ** 30,
      // A backslash and a tab: COPY must carry both through unchanged.
      evidence: { group: "user=ada,app=C:\\tools\tx", jobs: 40, censoredJobs: 0, features: ["user_p90"] },
    },
  ];
  const answer: Prediction = {
    id: randomUUID(),
    createdAt: "2026-12-03T10:00:00.000Z",
    mode: "live",
    modelVersion: "m1",
    cluster: spec.cluster,
    user: spec.user,
    resources,
  };
  const r: RecordedPrediction = {
    answer,
    resources,
    resourcesJson: JSON.stringify(resources),
    recommendations: resources.map(scoredOutcome),
    spec,
    linkKey: linkKeyOf(spec),
    requestedBy: "portal",
  };
  if (key) r.idempotencyKey = key;
  return r;
}

describe("prediction recorder over real PostgreSQL", () => {
  let s: StorageFixture;

  beforeAll(async () => {
    s = await openTestStorage("recorder");
  });

  afterAll(async () => {
    await s?.dispose();
  });

  const count = async (where = "true", params: unknown[] = []) =>
    (
      await s.storage.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM predictions WHERE ${where}`,
        params,
      )
    ).rows[0].n;

  it("keeps each prediction readable by id while it waits and after it is written, documents as served", async () => {
    const recorder = new PredictionRecorder(s.storage.pool, { flushIntervalMs: 60_000 });
    const items = [recorded(), recorded(), recorded(), recorded()];
    // Characters beyond ASCII in an answer kept as an object and in one kept as its JSON after
    // the id (as a batch hands them on), shared by two predictions.
    items[1].answer.notice = "modèle entraîné — 模型 😀";
    const json = new AnswerJson({ ...items[2].answer, notice: "ünïcode 😀" });
    const tail = json.tail(spec.cluster, spec.user, JSON.stringify(items[2].resources));
    for (const item of items.slice(2)) {
      item.answer.notice = "ünïcode 😀";
      item.answerTail = tail;
    }
    recorder.record(items);
    expect(recorder.pending).toBe(4);
    for (const item of items) expect(await recorder.get(item.answer.id)).toEqual(item.answer);
    // Each read is a copy of its own.
    const read = await recorder.get(items[3].answer.id);
    if (read) read.user = "changed";
    expect(await recorder.get(items[3].answer.id)).toEqual(items[3].answer);
    await recorder.close();
    expect(recorder.written).toBe(4);
    expect(await recorder.get(items[1].answer.id)).toEqual(items[1].answer);
    const { rows } = await s.storage.pool.query<{ resources: string; spec: string }>(
      "SELECT resources::text AS resources, spec::text AS spec FROM predictions WHERE id = $1",
      [items[0].answer.id],
    );
    // The text as it was served, key order and escapes included.
    expect(rows[0].resources).toBe(items[0].resourcesJson);
    expect(JSON.parse(rows[0].spec)).toEqual(spec);
  });

  it("writes every line of many small records and a large one, in order, across its buffers", async () => {
    const recorder = new PredictionRecorder(s.storage.pool, { flushIntervalMs: 60_000, maxBatch: 70 });
    const singles = Array.from({ length: 250 }, () => recorded());
    // Some written while others are still being recorded into the same buffer.
    for (const [i, item] of singles.entries()) {
      recorder.record([item]);
      if (i % 90 === 0) await recorder.flush();
    }
    const batch = Array.from({ length: 300 }, () => recorded());
    recorder.record(batch);
    recorder.record([recorded()]);
    await recorder.close();
    const ids = [...singles, ...batch].map((p) => p.answer.id);
    const { rows } = await s.storage.pool.query<{ id: string; resources: string }>(
      "SELECT id, resources::text AS resources FROM predictions WHERE id = ANY($1)",
      [ids],
    );
    expect(rows).toHaveLength(ids.length);
    const text = new Map(rows.map((r) => [r.id, r.resources]));
    for (const p of [...singles, ...batch]) expect(text.get(p.answer.id)).toBe(p.resourcesJson);
  });

  it("keeps the lines still waiting in a buffer whose other predictions were dropped during a write", async () => {
    const recorder = new PredictionRecorder(s.storage.pool, {
      flushIntervalMs: 60_000,
      maxBatch: 10,
      maxPending: 30,
    });
    const first = Array.from({ length: 20 }, () => recorded());
    recorder.record(first);
    // A write of the first ten starts at once; then 25 more (a buffer of their own) push the
    // fifteen oldest out while it is under way: ten of them being written, five never.
    const flushed = recorder.flush();
    const second = Array.from({ length: 25 }, () => recorded());
    recorder.record(second);
    expect(recorder.dropped).toBe(15);
    await flushed;
    const kept = [...first.slice(0, 10), ...first.slice(15), ...second];
    // The five left of the first buffer were written whole after it (not lost with its drop).
    for (const p of first.slice(15)) expect(await recorder.get(p.answer.id)).toEqual(p.answer);
    const { rows } = await s.storage.pool.query<{ id: string; resources: string }>(
      "SELECT id, resources::text AS resources FROM predictions WHERE id = ANY($1)",
      [[...first, ...second].map((p) => p.answer.id)],
    );
    expect(rows.map((r) => r.id).sort()).toEqual(kept.map((p) => p.answer.id).sort());
    const text = new Map(rows.map((r) => [r.id, r.resources]));
    for (const p of kept) expect(text.get(p.answer.id)).toBe(p.resourcesJson);
    await recorder.close();
  });

  it("stores once a write that was committed and is sent again (its answer was lost)", async () => {
    const items = [recorded(), recorded()];
    const rows = predictionRows(items);
    await insertPredictionRows(s.storage.pool, rows, { mayRepeat: false });
    // The straight copy meets its own rows and is redone skipping them, instead of failing forever.
    await insertPredictionRows(s.storage.pool, rows, { mayRepeat: false });
    await insertPredictionRows(s.storage.pool, predictionRows([...items, recorded()]), {
      mayRepeat: false,
    });
    const ids = items.map((i) => i.answer.id);
    expect(await count("id = ANY($1)", [ids])).toBe(2);
  });

  it("writes on its own once writeAtPending predictions wait, write after write, and a flush meanwhile writes each once", async () => {
    const recorder = new PredictionRecorder(s.storage.pool, {
      flushIntervalMs: 60_000,
      maxBatch: 40,
      writeAtPending: 35,
    });
    const few = Array.from({ length: 34 }, () => recorded());
    recorder.record(few);
    // Under the threshold and long before the interval: nothing is written yet.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count("id = ANY($1)", [few.map((p) => p.answer.id)])).toBe(0);
    const more = Array.from({ length: 80 }, () => recorded());
    recorder.record(more);
    // 114 waiting, 40 per write: each write that ends starts the next while 35 or more wait, so
    // all but the last 34 are written with no tick and no flush.
    const all = [...few, ...more].map((p) => p.answer.id);
    const deadline = Date.now() + 10_000;
    while ((await count("id = ANY($1)", [all])) < 80 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await count("id = ANY($1)", [all])).toBe(80);
    expect(recorder.pending).toBe(34);
    // A flush while a write may have just started itself: every prediction once, none twice.
    const late = Array.from({ length: 30 }, () => recorded());
    recorder.record(late);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(recorder.written).toBe(144);
    expect(await count("id = ANY($1)", [[...all, ...late.map((p) => p.answer.id)]])).toBe(144);
    await recorder.close();
  });

  it("keeps the first prediction of an idempotency key, also when both wait in one write", async () => {
    const recorder = new PredictionRecorder(s.storage.pool, { flushIntervalMs: 60_000 });
    const first = recorded("portal-7");
    const again = recorded("portal-7");
    recorder.record([first]);
    recorder.record([again, recorded()]);
    await recorder.close();
    const { rows } = await s.storage.pool.query<{ id: string }>(
      "SELECT id FROM predictions WHERE idempotency_key = 'portal-7'",
    );
    expect(rows.map((r) => r.id)).toEqual([first.answer.id]);
    expect(await count("id = $1", [again.answer.id])).toBe(0);
  });
});
