import type { Prediction, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { BufferPool } from "../../data-plane/copy/buffer-pool.js";
import { Utf8Writer } from "../../data-plane/copy/utf8-writer.js";
import {
  type AnswerCommon,
  AnswerJson,
  answerText,
  BatchAnswerJson,
  rememberTail,
  writeAnswer,
} from "./answer-json.js";

const resources: ResourcePrediction[] = [
  {
    resource: "memory",
    status: "ok",
    unit: "bytes",
    value: 3 * 2 ** 30,
    low: 2 ** 30,
    high: 4 * 2 ** 30,
    confidence: 0.97,
    evidence: { group: "user=alice,executable=train.py", jobs: 12, censoredJobs: 1, features: ["user_max"] },
    nominalLevel: 0.9,
    requested: 16 * 2 ** 30,
  },
  {
    resource: "walltime",
    status: "insufficient_evidence",
    reasonCode: "too_uncertain",
    reason: 'similar jobs vary too much: a safe value would be 12.5× the typical one ("erratic")',
  },
];

// Built as makePredictions builds an answer: the order of the schema, optional fields last.
function answer(common: AnswerCommon, i: number, user = "alice", shown = resources): Prediction {
  const a: Prediction = {
    id: `00000000-0000-4000-8000-00000000000${i}`,
    createdAt: common.createdAt,
    mode: common.mode,
    modelVersion: common.modelVersion,
    cluster: "hpc1",
    user,
    resources: shown,
  };
  if (common.shadowUntil !== undefined) a.shadowUntil = common.shadowUntil;
  if (common.notice !== undefined) a.notice = common.notice;
  return a;
}

const live: AnswerCommon = { createdAt: "2026-01-02T03:04:05.678Z", mode: "live", modelVersion: "v1" };
const shadow: AnswerCommon = {
  createdAt: "2026-01-02T03:04:05.678Z",
  mode: "shadow",
  modelVersion: "v1",
  shadowUntil: "2026-02-01T00:00:00.000Z",
  notice: 'Shadow mode until 2026-02-01: "recorded", nothing applied.',
};

describe("AnswerJson", () => {
  it("writes exactly what JSON.stringify writes, in live and in shadow mode", () => {
    for (const common of [live, shadow, { ...live, notice: "No model yet." }]) {
      const json = new AnswerJson(common);
      const shown = common.mode === "shadow" ? [] : resources;
      const a = answer(common, 1, "alice", shown);
      rememberTail(a, json.tail(a.cluster, a.user, JSON.stringify(shown)));
      expect(answerText(a)).toBe(JSON.stringify(a));
    }
  });

  it("serialises an answer it did not write (one read back from storage) as usual", () => {
    const a = answer(live, 2);
    expect(answerText(a)).toBe(JSON.stringify(a));
    const out = new Utf8Writer(16);
    writeAnswer(out, a);
    expect(out.bytes().toString()).toBe(JSON.stringify(a));
  });

  it("gives answers of the same job one tail, each with its own id", () => {
    const json = new AnswerJson(live);
    const tail = json.tail("hpc1", "zoë", JSON.stringify(resources));
    const answers = [1, 2, 3].map((i) => answer(live, i, "zoë"));
    const out = new Utf8Writer(16);
    for (const a of answers) {
      rememberTail(a, tail);
      writeAnswer(out, a);
      expect(answerText(a)).toBe(JSON.stringify(a));
    }
    expect(out.bytes().toString()).toBe(answers.map((a) => JSON.stringify(a)).join(""));
  });
});

describe("answers handed on with their tail", () => {
  it("are written from the tail given, not serialised again, and only the id is read", () => {
    const json = new AnswerJson(live);
    const tail = json.tail("hpc1", "zoë", JSON.stringify(resources));
    const answers = [1, 2].map((i) => answer(live, i, "zoë"));
    const batch = new BatchAnswerJson(2);
    for (const a of answers) batch.add(a, tail);
    expect(batch.finish().bytes().toString()).toBe(JSON.stringify({ predictions: answers }));
    // The tail is what is written: an answer object that says otherwise is not read beyond its id.
    const changed = { ...answers[0], user: "mallory" };
    expect(JSON.parse(answerText(changed, tail)).user).toBe("zoë");
    expect(answerText({ id: answers[1].id }, tail)).toBe(JSON.stringify(answers[1]));
  });
});

/** A batch's JSON writer fed every answer in order, finished. */
function batchJson(answers: readonly Prediction[], pool?: BufferPool) {
  const batch = new BatchAnswerJson(answers.length, pool);
  for (const a of answers) batch.add(a);
  return batch.finish();
}

describe("BatchAnswerJson", () => {
  it("gives the bytes of the serialised batch, characters beyond ASCII included", () => {
    const json = new AnswerJson(live);
    const answers = ["alice", "zoë", "用户", "😀".repeat(300)].map((user, i) => answer(live, i, user));
    for (const a of answers.slice(0, 3))
      rememberTail(a, json.tail(a.cluster, a.user, JSON.stringify(a.resources)));
    expect(
      batchJson(answers)
        .bytes()
        .equals(Buffer.from(JSON.stringify({ predictions: answers }))),
    ).toBe(true);
  });

  it("writes an empty batch", () => {
    expect(batchJson([]).bytes().toString()).toBe('{"predictions":[]}');
  });

  it("writes into a pooled buffer given back once sent, and the next answer is whole in it", () => {
    // Both answers fit the pool's smallest size class (64 KiB).
    const pool = new BufferPool();
    const first = batchJson(
      Array.from({ length: 20 }, (_, i) => answer(live, i, "alice")),
      pool,
    );
    const buffer = first.bytes().buffer;
    first.release();
    expect(pool.pooledBytes).toBe(buffer.byteLength);
    const answers = Array.from({ length: 3 }, (_, i) => answer(live, i, "bob"));
    const second = batchJson(answers, pool);
    expect(second.bytes().buffer).toBe(buffer);
    expect(second.bytes().toString()).toBe(JSON.stringify({ predictions: answers }));
  });
});
