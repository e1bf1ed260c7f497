import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import {
  bodyMayHoldUnstorable,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  registerJsonBodyParser,
} from "./json-body-parser.js";

describe("registerJsonBodyParser", () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function echo(): Promise<FastifyInstance> {
    const a = Fastify();
    registerJsonBodyParser(a);
    a.post("/echo", async (request) => ({ body: request.body, mayHold: bodyMayHoldUnstorable(request) }));
    a.post("/raw", {
      handler: async (request) => ({ mayHold: bodyMayHoldUnstorable(request) }),
    });
    await a.ready();
    return a;
  }

  const post = (a: FastifyInstance, payload: string, type = "application/json") =>
    a.inject({ method: "POST", url: "/echo", headers: { "content-type": type }, payload });

  it("parses JSON as before and says when its text holds no NUL or surrogate escape", async () => {
    app = await echo();
    for (const text of ['{"user":"zoë","n":[1,2]}', '{"user":"z\\u00f6e \\u4e2d"}']) {
      const res = await post(app, text);
      expect(res.statusCode).toBe(200);
      expect(res.json().mayHold).toBe(false);
    }
    expect((await post(app, '{"user":"zoë","n":[1,2]}')).json().body).toEqual({ user: "zoë", n: [1, 2] });
  });

  it("flags a surrogate's escape, alone or paired (the walk tells which)", async () => {
    app = await echo();
    for (const text of ['{"user":"\\ud800"}', '{"user":"\\uDFFF"}', '{"user":"\\ud83d\\ude00"}']) {
      expect((await post(app, text)).json().mayHold).toBe(true);
    }
  });

  it("flags a NUL escape in a value or a key, and a literal backslash-u0000 (a harmless false alarm)", async () => {
    app = await echo();
    for (const text of ['{"user":"a\\u0000b"}', '{"a\\u0000":1}', '{"path":"C:\\\\u0000"}']) {
      const res = await post(app, text);
      expect(res.statusCode).toBe(200);
      expect(res.json().mayHold).toBe(true);
    }
  });

  it("still refuses prototype and constructor poisoning, and malformed JSON", async () => {
    app = await echo();
    expect((await post(app, '{"__proto__":{"admin":true}}')).statusCode).toBe(400);
    expect((await post(app, '{"constructor":{"prototype":{"admin":true}}}')).statusCode).toBe(400);
    expect((await post(app, '{"user":')).statusCode).toBe(400);
    // A raw control character is not JSON: NUL cannot arrive other than escaped.
    expect((await post(app, '{"user":"a\u0000b"}')).statusCode).toBe(400);
  });

  it("refuses a body nested deeper than MAX_JSON_DEPTH with 400, before any recursive walk overflows", async () => {
    app = await echo();
    const n = 10_000;
    for (const text of [`${"[".repeat(n)}${"]".repeat(n)}`, `${'{"a":'.repeat(n)}1${"}".repeat(n)}`]) {
      const res = await post(app, text);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/nests deeper than 64 levels/);
    }
    const limit = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
    expect((await post(app, limit)).statusCode).toBe(200);
  });

  it("counts only the brackets outside strings, escaped quotes included", () => {
    const deep = "[".repeat(65);
    expect(nestsDeeperThan(`{"a":"${deep}"}`, 64)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\"}${deep}`, 64)).toBe(true);
    expect(nestsDeeperThan(`{"a":"\\"${deep}"}`, 64)).toBe(false);
    expect(nestsDeeperThan(`["${deep}`, 64)).toBe(false);
    expect(nestsDeeperThan(`[[1],[2],[[3]]]`, 2)).toBe(true);
    expect(nestsDeeperThan(`[[1],[2],[3]]`, 2)).toBe(false);
  });

  it("leaves a request it did not parse to be checked string by string", async () => {
    app = await echo();
    const res = await app.inject({ method: "POST", url: "/raw" });
    expect(res.json()).toEqual({ mayHold: true });
  });
});
