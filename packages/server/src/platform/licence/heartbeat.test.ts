import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SecurityConfigError } from "../security-config-error.js";
import { buildHeartbeat, HeartbeatClient, type HeartbeatSource } from "./heartbeat.js";
import { heartbeatPayloadErrors } from "./heartbeat-payload.js";

// Recognisable job data that must never leave the site.
const SECRETS = {
  users: ["zelda-quokka", "yannick-okapi"],
  jobIds: ["job-77123981", "4242424242"],
  scripts: ["/home/zelda-quokka/secret_train.py", "#!/bin/bash\n#SBATCH --mem=99G\npython leak.py"],
  paths: ["/scratch/projects/okapi-genome/data.h5"],
  hosts: ["gpu-node-quokka17"],
  metrics: [987_654_321_987, 0.873_421, 31_415_926_535, 271_828_182],
};

// A source as a careless implementation might write it: the counts come with the rows they
// were computed from, and other fields carry whatever was at hand.
function leakySource(overrides: Partial<HeartbeatSource> = {}): HeartbeatSource {
  const counts = {
    nodes: 12,
    clusters: 2,
    jobsPerDay: 340,
    predictionsPerDay: 55,
    users: SECRETS.users,
    lastJob: {
      jobId: SECRETS.jobIds[0],
      user: SECRETS.users[0],
      script: SECRETS.scripts[0],
      peak: SECRETS.metrics[0],
    },
    rows: SECRETS.jobIds.map((jobId, i) => ({
      jobId,
      path: SECRETS.paths[0],
      node: SECRETS.hosts[0],
      gpu: SECRETS.metrics[i + 1],
    })),
  };
  return {
    versions: () => ({ server: "0.1.0", schemas: "0.1.0", node: "20.19.0", user: SECRETS.users[1] }) as never,
    health: () => "ok",
    licence: () => ({ id: "L-2026-0001", status: "valid", site: SECRETS.paths[0] }) as never,
    counts: async () => counts,
    ...overrides,
  };
}

type Capture = {
  url: string;
  bodies: string[];
  headers: Record<string, unknown>[];
  status: number;
  close(): Promise<void>;
};

async function controlPlane(status = 204): Promise<Capture> {
  const capture = { bodies: [] as string[], headers: [] as Record<string, unknown>[], status } as Capture;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      capture.bodies.push(body);
      capture.headers.push({ ...req.headers });
      res.writeHead(capture.status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  capture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/heartbeat`;
  capture.close = () => new Promise<void>((r) => server.close(() => r()));
  return capture;
}

async function closedPortUrl(): Promise<string> {
  const plane = await controlPlane();
  await plane.close();
  return plane.url;
}

let plane: Capture;
beforeEach(async () => {
  plane = await controlPlane();
});
afterEach(async () => {
  await plane.close();
});

describe("the heartbeat payload", () => {
  it("carries no user name, job id, script, path, host or metric value", async () => {
    const client = new HeartbeatClient(leakySource(), { url: plane.url });
    expect(await client.beatOnce()).toEqual({ result: "sent", status: 204 });
    expect(plane.bodies).toHaveLength(1);
    const body = plane.bodies[0];
    const headers = JSON.stringify(plane.headers[0]);
    for (const secret of [
      ...SECRETS.users,
      ...SECRETS.jobIds,
      ...SECRETS.scripts,
      ...SECRETS.paths,
      ...SECRETS.hosts,
    ]) {
      for (const fragment of [secret, ...secret.split(/[^A-Za-z0-9]+/).filter((f) => f.length >= 5)]) {
        expect(body).not.toContain(fragment);
        expect(headers).not.toContain(fragment);
      }
    }
    for (const value of SECRETS.metrics) expect(body).not.toContain(String(value));
    expect(JSON.parse(body)).toEqual({
      schemaVersion: 1,
      sentAt: expect.stringMatching(/Z$/),
      versions: { server: "0.1.0", schemas: "0.1.0", node: "20.19.0" },
      health: "ok",
      licence: { id: "L-2026-0001", status: "valid" },
      counts: { nodes: 12, clusters: 2, jobsPerDay: 340, predictionsPerDay: 55 },
    });
  });

  it("refuses to send free text smuggled into a version, a licence id or a count", async () => {
    const cases: Partial<HeartbeatSource>[] = [
      { versions: () => ({ server: `0.1.0-${SECRETS.users[0]}`, schemas: "0.1.0", node: "20.19.0" }) },
      { versions: () => ({ server: "0.1.0", schemas: "0.1.0", node: `20.19.0 ${SECRETS.paths[0]}` }) },
      { licence: () => ({ id: SECRETS.paths[0], status: "valid" }) },
      { health: () => SECRETS.users[0] as "ok" },
      { counts: async () => ({ nodes: 1.5, clusters: 1, jobsPerDay: 1, predictionsPerDay: 1 }) },
      { counts: async () => ({ nodes: -1, clusters: 1, jobsPerDay: 1, predictionsPerDay: 1 }) },
      { counts: async () => ({ nodes: Number.NaN, clusters: 1, jobsPerDay: 1, predictionsPerDay: 1 }) },
      {
        counts: async () => ({
          nodes: SECRETS.jobIds[1] as unknown as number,
          clusters: 1,
          jobsPerDay: 1,
          predictionsPerDay: 1,
        }),
      },
    ];
    for (const override of cases) {
      const outcome = await new HeartbeatClient(leakySource(override), { url: plane.url }).beatOnce();
      expect(outcome.result).toBe("invalid");
    }
    expect(plane.bodies).toEqual([]);
  });

  it("has a strict schema: extra fields anywhere are rejected", async () => {
    const valid = await buildHeartbeat(leakySource());
    expect(heartbeatPayloadErrors(valid)).toEqual([]);
    expect(heartbeatPayloadErrors({ ...valid, users: SECRETS.users })).not.toEqual([]);
    expect(
      heartbeatPayloadErrors({ ...valid, counts: { ...valid.counts, perUser: { zelda: 3 } } }),
    ).not.toEqual([]);
    expect(heartbeatPayloadErrors({ ...valid, versions: { ...valid.versions, build: "abc" } })).not.toEqual(
      [],
    );
    expect(heartbeatPayloadErrors({ ...valid, licence: { ...valid.licence, site: "x" } })).not.toEqual([]);
    const { health: _, ...withoutHealth } = valid;
    expect(heartbeatPayloadErrors(withoutHealth)).toContainEqual(expect.stringMatching(/health/));
  });
});

describe("HeartbeatClient", () => {
  it("is off by default and then sends nothing", async () => {
    const counts = vi.fn(async () => ({ nodes: 1, clusters: 1, jobsPerDay: 1, predictionsPerDay: 1 }));
    const client = new HeartbeatClient(leakySource({ counts }));
    expect(client.enabled).toBe(false);
    client.start();
    expect(await client.beatOnce()).toEqual({ result: "disabled" });
    await client.stop();
    expect(counts).not.toHaveBeenCalled();
  });

  it("works offline: an unreachable control plane is counted and logged, never thrown", async () => {
    const warn = vi.fn();
    const client = new HeartbeatClient(leakySource(), {
      url: await closedPortUrl(),
      logger: { warn, debug: () => {} },
      timeoutMs: 2000,
    });
    const outcome = await client.beatOnce();
    expect(outcome.result).toBe("failed");
    expect(client.stats()).toMatchObject({ sent: 0, failed: 1, consecutiveFailures: 1 });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("treats an error status as a failure and recovers on the next success", async () => {
    plane.status = 503;
    const client = new HeartbeatClient(leakySource(), { url: plane.url });
    expect(await client.beatOnce()).toEqual({ result: "failed", error: "HTTP 503" });
    plane.status = 200;
    expect(await client.beatOnce()).toEqual({ result: "sent", status: 200 });
    expect(client.stats()).toMatchObject({
      sent: 1,
      failed: 1,
      consecutiveFailures: 0,
      lastSentAt: expect.any(String),
    });
  });

  it("survives a source and a logger that throw", async () => {
    const client = new HeartbeatClient(
      leakySource({
        counts: async () => {
          throw new Error("database down");
        },
      }),
      {
        url: plane.url,
        logger: {
          warn: () => {
            throw new Error("logger broken");
          },
          debug: () => {},
        },
      },
    );
    await expect(client.beatOnce()).resolves.toMatchObject({ result: "failed" });
  });

  it("runs in the background, backs off while the control plane is down, and stops", async () => {
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      const down = new HeartbeatClient(leakySource(), {
        url: await closedPortUrl(),
        initialDelayMs: 0,
        retryDelayMs: 5,
        intervalMs: 40,
      });
      down.start();
      await vi.waitFor(() => expect(down.stats().failed).toBeGreaterThanOrEqual(3), { timeout: 5000 });
      await down.stop();

      const up = new HeartbeatClient(leakySource(), { url: plane.url, initialDelayMs: 0, intervalMs: 10 });
      up.start();
      up.start();
      await vi.waitFor(() => expect(plane.bodies.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
      await up.stop();
      const sent = plane.bodies.length;
      await new Promise((r) => setTimeout(r, 50));
      expect(plane.bodies.length).toBe(sent);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  it("sends only while this replica leads, and keeps its turn while another does", async () => {
    let leader = false;
    const client = new HeartbeatClient(leakySource(), {
      url: plane.url,
      initialDelayMs: 0,
      intervalMs: 10,
      active: () => leader,
    });
    client.start();
    await new Promise((r) => setTimeout(r, 80));
    expect(plane.bodies).toHaveLength(0);
    leader = true;
    await vi.waitFor(() => expect(plane.bodies.length).toBeGreaterThanOrEqual(1), { timeout: 5000 });
    await client.stop();
    expect(client.stats().failed).toBe(0);
  });

  it("doubles the retry delay per failure up to the interval", () => {
    const client = new HeartbeatClient(leakySource(), {
      url: plane.url,
      retryDelayMs: 1000,
      intervalMs: 60_000,
    });
    expect(client.nextDelayMs(0)).toBe(60_000);
    for (const [failures, base] of [
      [1, 1000],
      [2, 2000],
      [4, 8000],
      [12, 60_000],
    ]) {
      const delay = client.nextDelayMs(failures);
      expect(delay).toBeGreaterThanOrEqual(base * 0.8);
      expect(delay).toBeLessThanOrEqual(base * 1.2);
    }
  });

  it("insists on https beyond loopback", () => {
    expect(() => new HeartbeatClient(leakySource(), { url: "http://control.example.com/hb" })).toThrow(
      SecurityConfigError,
    );
    expect(() => new HeartbeatClient(leakySource(), { url: "not a url" })).toThrow(SecurityConfigError);
    expect(new HeartbeatClient(leakySource(), { url: "https://control.example.com/hb" }).enabled).toBe(true);
    expect(
      new HeartbeatClient(leakySource(), { url: "http://control.internal/hb", allowInsecureHttp: true })
        .enabled,
    ).toBe(true);
  });
});
