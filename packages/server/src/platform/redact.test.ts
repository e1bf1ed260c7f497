import fastify from "fastify";
import { describe, expect, it } from "vitest";
import { jobsightLoggerOptions, REDACTED, redactUrl } from "./redact.js";

const BEARER = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVlLTEyMzQ1Njc4OQ";
const API_TOKEN = "jst_Zq3xV9mK2pL8rT5wY1nB4cD7fG0hJ6sA9eU2iO5uX8k";
const SECRETS = [
  BEARER,
  API_TOKEN,
  "hunter2-password",
  "s3cr3t-value",
  "session=abc123def456",
  "url-token-987654",
];

async function run(
  logger: ReturnType<typeof jobsightLoggerOptions> | { level: string; stream: { write(l: string): void } },
) {
  const lines: string[] = [];
  const app = fastify({
    logger: { ...logger, level: "debug", stream: { write: (l: string) => lines.push(l) } },
  });
  app.post("/v1/things", async (request) => {
    request.log.info({ headers: request.headers }, "headers as a careless handler logs them");
    request.log.info({ body: request.body }, "body");
    request.log.warn({ config: { database: { password: "hunter2-password" } } }, "nested");
    return { ok: true };
  });
  const response = await app.inject({
    method: "POST",
    url: "/v1/things?cluster=hpc1&access_token=url-token-987654",
    headers: {
      authorization: `Bearer ${BEARER}`,
      "x-api-key": API_TOKEN,
      cookie: "session=abc123def456",
      "user-agent": "jobsight-test",
    },
    payload: { name: "job", password: "hunter2-password", secret: "s3cr3t-value", token: API_TOKEN },
  });
  expect(response.statusCode).toBe(200);
  await app.close();
  return lines.join("");
}

describe("log redaction", () => {
  it("keeps bearer tokens, API tokens, cookies, passwords and secrets out of a real fastify log", async () => {
    const log = await run(jobsightLoggerOptions());
    for (const secret of SECRETS) expect(log).not.toContain(secret);
    expect(log).toContain(REDACTED);
    // What is useful stays.
    expect(log).toContain("jobsight-test");
    expect(log).toContain("cluster=hpc1");
    expect(log).toContain('"name":"job"');
  });

  it("is what keeps them out: without it they appear", async () => {
    const log = await run({ level: "debug", stream: { write: () => {} } });
    expect(log).toContain(BEARER);
    expect(log).toContain("hunter2-password");
  });
});

describe("redactUrl", () => {
  it("censors credential query parameters only", () => {
    expect(redactUrl("/v1/jobs?user=a&access_token=xyz&TOKEN=q&limit=5")).toBe(
      `/v1/jobs?user=a&access_token=${REDACTED}&TOKEN=${REDACTED}&limit=5`,
    );
    expect(redactUrl("/v1/jobs?acc%65ss_token=xyz")).toBe(`/v1/jobs?acc%65ss_token=${REDACTED}`);
    expect(redactUrl("/healthz")).toBe("/healthz");
    expect(redactUrl("/x?%E0%A4%A=1&token")).toBe("/x?%E0%A4%A=1&token");
  });
});
