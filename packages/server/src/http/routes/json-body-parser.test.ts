import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { bodyMayHoldNul, registerJsonBodyParser } from "./json-body-parser.js";

describe("registerJsonBodyParser", () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function echo(): Promise<FastifyInstance> {
    const a = Fastify();
    registerJsonBodyParser(a);
    a.post("/echo", async (request) => ({ body: request.body, mayHoldNul: bodyMayHoldNul(request) }));
    a.post("/raw", {
      handler: async (request) => ({ mayHoldNul: bodyMayHoldNul(request) }),
    });
    await a.ready();
    return a;
  }

  const post = (a: FastifyInstance, payload: string, type = "application/json") =>
    a.inject({ method: "POST", url: "/echo", headers: { "content-type": type }, payload });

  it("parses JSON as before and says when its text holds no NUL escape", async () => {
    app = await echo();
    const res = await post(app, '{"user":"zoë","n":[1,2]}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { user: "zoë", n: [1, 2] }, mayHoldNul: false });
  });

  it("flags a NUL escape in a value or a key, and a literal backslash-u0000 (a harmless false alarm)", async () => {
    app = await echo();
    for (const text of ['{"user":"a\\u0000b"}', '{"a\\u0000":1}', '{"path":"C:\\\\u0000"}']) {
      const res = await post(app, text);
      expect(res.statusCode).toBe(200);
      expect(res.json().mayHoldNul).toBe(true);
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

  it("leaves a request it did not parse to be checked string by string", async () => {
    app = await echo();
    const res = await app.inject({ method: "POST", url: "/raw" });
    expect(res.json()).toEqual({ mayHoldNul: true });
  });
});
