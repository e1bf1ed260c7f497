import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateUsageSample } from "@jobsight/schemas";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../errors.js";
import { createLogger } from "../../log/logger.js";
import { NodeMode } from "../../modes/node-mode.js";
import { DiskSpool } from "../../spool/disk-spool.js";
import { CgroupTree } from "../../test-support/cgroup-tree.js";
import { ProcTree } from "../../test-support/proc-tree.js";
import { takeSpooled } from "../../test-support/spool-contents.js";
import { testPki } from "../../test-support/test-pki.js";
import { ProcReader } from "../proc-reader.js";
import { CadvisorSource } from "./cadvisor.js";

// The kubelet's authenticated port for real: an HTTPS server on 127.0.0.1 with a serving
// certificate signed by its own CA (as a kubelet without serverTLSBootstrap makes one), serving
// the recorded cAdvisor exposition to the bearer token it expects, 401 to any other, and the
// service account token as the kubelet projects it (a `..data` symlink swapped on rotation).

const fixture = readFileSync(join(import.meta.dirname, "fixtures", "kubelet-metrics-cadvisor.prom"), "utf8");
const TRAIN = "8d5d1b2a-3c4e-4f60-9a7b-2e1f0c3d4b5a";
const INFER = "c0ffee00-1111-4222-8333-444455556666";

let pki: string;
let cert: Buffer;
let key: Buffer;
const f = (name: string) => join(pki, name);

beforeAll(async () => {
  pki = mkdtempSync(join(tmpdir(), "jobsight-kubelet-pki-"));
  const certs = testPki(pki);
  await certs.ca("kubelet-ca", "/CN=kubelet-ca@1764000000");
  await certs.ca("other-ca", "/CN=other-ca@1764000000");
  ({ cert, key } = await certs.issue(
    "kubelet",
    "kubelet-ca",
    "/CN=node-1@1764000000",
    "DNS:node-1,IP:127.0.0.1",
  ));
}, 60_000);
afterAll(() => rmSync(pki, { recursive: true, force: true }));

type Kubelet = { url: string; seen: (string | undefined)[]; accept: Set<string>; status?: number };
let server: Server | undefined;
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "jobsight-kubelet-auth-"));
});
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  rmSync(work, { recursive: true, force: true });
});

/** The kubelet's HTTPS port: the exposition to an accepted bearer token, 401 otherwise (or `status` when set). */
async function kubelet(...tokens: string[]): Promise<Kubelet> {
  const k: Kubelet = { url: "", seen: [], accept: new Set(tokens) };
  server = createServer({ cert, key }, (req, res) => {
    if (req.url !== "/metrics/cadvisor") return void res.writeHead(404).end();
    const auth = req.headers.authorization;
    k.seen.push(auth);
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    if (k.status) return void res.writeHead(k.status, { "content-type": "text/plain" }).end("Forbidden");
    if (!token || !k.accept.has(token)) return void res.writeHead(401).end("Unauthorized");
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(fixture);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  k.url = `https://127.0.0.1:${(server!.address() as AddressInfo).port}/metrics/cadvisor`;
  return k;
}

/** A service account token volume as the kubelet writes it: `token -> ..data/token`, `..data` swapped atomically. */
function projectToken(token: string, generation: number): string {
  const dir = join(work, "serviceaccount");
  mkdirSync(join(dir, `..2026_12_01_10_00_0${generation}`), { recursive: true });
  writeFileSync(join(dir, `..2026_12_01_10_00_0${generation}`, "token"), token);
  symlinkSync(`..2026_12_01_10_00_0${generation}`, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
  if (generation === 1) symlinkSync("..data/token", join(dir, "token"));
  return join(dir, "token");
}

function capture() {
  const lines: string[] = [];
  const said: string[] = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(l) });
  return { lines, said, logger, onUnavailable: (m: string) => said.push(m) };
}

describe("CadvisorSource on the kubelet's authenticated port", () => {
  it("sends the service account token and verifies the kubelet against the CA file", async () => {
    const k = await kubelet("token-one");
    const tokenFile = projectToken("token-one\n", 1);
    const source = new CadvisorSource({ url: k.url, tokenFile, caFile: f("kubelet-ca.crt") });
    const pods = await source.read();
    expect([...pods!.keys()].sort()).toEqual([TRAIN, INFER].sort());
    expect(source.status).toBe("running");
    expect(k.seen).toEqual(["Bearer token-one"]);
  });

  it("sends the rotated token at the next scrape, and keeps the last one while the file cannot be read", async () => {
    const k = await kubelet("token-one", "token-two");
    const tokenFile = projectToken("token-one", 1);
    const out = capture();
    const source = new CadvisorSource({ url: k.url, tokenFile, caFile: f("kubelet-ca.crt"), ...out });
    await source.read();
    projectToken("token-two", 2);
    await source.read();
    expect(k.seen).toEqual(["Bearer token-one", "Bearer token-two"]);

    rmSync(join(work, "serviceaccount", "..data"));
    expect((await source.read())?.size).toBe(2);
    expect((await source.read())?.size).toBe(2);
    expect(k.seen.slice(2)).toEqual(["Bearer token-two", "Bearer token-two"]);
    expect(out.said).toEqual([
      expect.stringMatching(
        new RegExp(
          `^cannot read the kubelet token file ${tokenFile}: ENOENT.*; sending the token read before$`,
        ),
      ),
    ]);
    projectToken("token-three", 3);
    k.accept.add("token-three");
    await source.read();
    expect(k.seen.at(-1)).toBe("Bearer token-three");
    expect(out.said).toHaveLength(1);
    for (const text of [...out.lines, ...out.said]) expect(text).not.toMatch(/token-(one|two|three)/);
  });

  it("fails clearly against a CA that did not sign the kubelet, and the round falls back to the cgroups", async () => {
    const k = await kubelet("token-one");
    const out = capture();
    const source = new CadvisorSource({
      url: k.url,
      tokenFile: projectToken("token-one", 1),
      caFile: f("other-ca.crt"),
      ...out,
    });
    const tree = new CgroupTree();
    const proc = new ProcTree();
    const spool = await DiskSpool.open({ dir: join(work, "spool") });
    try {
      tree.pod(TRAIN, { memoryCurrent: 2 * 1024 ** 3, containers: ["c1"] });
      let mode: NodeMode | undefined;
      const cadvisor = new CadvisorSource({
        url: k.url,
        tokenFile: join(work, "serviceaccount", "token"),
        caFile: f("other-ca.crt"),
        onUnavailable: (m) => mode?.sourceUnavailable("cadvisor", m),
      });
      mode = new NodeMode({
        cluster: "k1",
        node: "node-1",
        spool,
        proc: new ProcReader({ root: proc.root }),
        cgroupVersion: "v2",
        cgroupRoot: tree.root,
        topProcesses: 0,
        trimHeap: false,
        cadvisor,
      });
      await mode.collect();
      const { samples, events } = await takeSpooled(spool);
      expect(samples.map((s) => [s.jobId, s.memory?.currentBytes])).toEqual([[TRAIN, 2 * 1024 ** 3]]);
      for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
      expect(events.filter((e) => e.source === "cadvisor")).toMatchObject([
        { kind: "source_unavailable", message: expect.stringContaining("is not signed by the CA of") },
      ]);
      expect(mode.stats()).toMatchObject({ rounds: 1, failedRounds: 0 });
    } finally {
      await spool.close();
      tree.cleanup();
      proc.cleanup();
    }

    expect(await source.read()).toBeUndefined();
    expect(source.status).toBe("unavailable");
    expect(out.said).toEqual([
      `cAdvisor scrape of ${k.url} failed: unable to verify the first certificate: the kubelet's certificate is not signed by the CA of ${f("other-ca.crt")} (UNABLE_TO_VERIFY_LEAF_SIGNATURE): give the CA that signs the kubelet's serving certificate with --cadvisor-ca-file, or turn verification off with --cadvisor-insecure-skip-tls-verify`,
    ]);
    expect(k.seen).toEqual([]);
  });

  it("accepts the kubelet's own certificate with verification off, warning once, and refuses it otherwise", async () => {
    const k = await kubelet("token-one");
    const tokenFile = projectToken("token-one", 1);
    const verified = capture();
    const strict = new CadvisorSource({ url: k.url, tokenFile, ...verified });
    expect(await strict.read()).toBeUndefined();
    expect(verified.said[0]).toContain(
      "is not signed by the CAs Node.js trusts (UNABLE_TO_VERIFY_LEAF_SIGNATURE)",
    );

    const out = capture();
    const source = new CadvisorSource({ url: k.url, tokenFile, insecureSkipVerify: true, ...out });
    await source.read();
    expect((await source.read())?.size).toBe(2);
    expect(k.seen).toEqual(["Bearer token-one", "Bearer token-one"]);
    const warnings = out.lines.map((l) => JSON.parse(l)).filter((l) => l.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^the kubelet's certificate is not verified/) }),
    ]);
  });

  it.each([
    [
      "a token the kubelet does not accept (401)",
      401,
      "stale",
      /the kubelet did not accept the token of .*; its service account needs RBAC get on nodes\/metrics/,
    ],
    [
      "no token (401)",
      401,
      undefined,
      /the kubelet wants a bearer token: set prometheus.cadvisorTokenFile .* granted RBAC get on nodes\/metrics/,
    ],
    [
      "a service account without the permission (403)",
      403,
      "token-one",
      /HTTP 403: the service account of the token of .* may not read the kubelet's metrics: it needs RBAC get on nodes\/metrics \(a ClusterRole rule: apiGroups \[""\], resources \["nodes\/metrics"\], verbs \["get"\]\)$/,
    ],
  ] as const)(
    "names the nodes/metrics permission when the kubelet refuses %s",
    async (_, status, token, message) => {
      const k = await kubelet("token-one");
      if (status === 403) k.status = 403;
      const out = capture();
      const tokenFile = token ? projectToken(token, 1) : undefined;
      const source = new CadvisorSource({ url: k.url, tokenFile, caFile: f("kubelet-ca.crt"), ...out });
      expect(await source.read()).toBeUndefined();
      expect(out.said).toHaveLength(1);
      expect(out.said[0]).toMatch(new RegExp(`^cAdvisor scrape of ${k.url} failed: HTTP ${status}: `));
      expect(out.said[0]).toMatch(message);
      expect(k.seen).toEqual([token ? `Bearer ${token}` : undefined]);
      for (const text of [...out.lines, ...out.said])
        if (token) expect(text).not.toContain(`Bearer ${token}`);
    },
  );

  it("refuses to start on a token or CA file it cannot read, naming both settings", () => {
    writeFileSync(join(work, "ca.crt"), "not a certificate\n");
    writeFileSync(join(work, "empty-token"), "\n");
    const attempt = (tokenFile: string) => () =>
      new CadvisorSource({
        url: "https://127.0.0.1:10250/metrics/cadvisor",
        tokenFile,
        caFile: join(work, "ca.crt"),
      });
    const error = (() => {
      try {
        attempt(join(work, "missing"))();
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("CONFIG_INVALID");
    expect((error as ConfigError).problems).toEqual([
      {
        path: "prometheus.cadvisorTokenFile",
        message: expect.stringMatching(/^cannot read .*missing: ENOENT/),
      },
      {
        path: "prometheus.cadvisorCaFile",
        message: `cannot read ${join(work, "ca.crt")}: holds no PEM certificate`,
      },
    ]);
    expect(attempt(join(work, "empty-token"))).toThrow(
      /prometheus.cadvisorTokenFile: cannot read .*empty-token: the file is empty/,
    );
    // A certificate cut short: Node.js's TLS would take it and trust nothing.
    const pem = readFileSync(f("kubelet-ca.crt"), "utf8");
    writeFileSync(join(work, "ca.crt"), pem.replace(/\n[A-Za-z0-9+/=]+\n-----END/, "\n-----END"));
    writeFileSync(join(work, "token"), "token-one");
    expect(attempt(join(work, "token"))).toThrow(
      /^invalid configuration:\n {2}prometheus.cadvisorCaFile: cannot read /,
    );
  });
});
