import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeExportMetricsRequest, decodeObservations, encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
import { EmbeddedPostgres } from "../src/data-plane/embedded-postgres.js";
import { openStorage } from "../src/data-plane/open-storage.js";

const DAY = Date.UTC(2026, 11, 1);
function samples(n: number, round: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const memory = 2 ** 30 + ((i * 7919) % 2 ** 20);
    out.push({
      cluster: "bench", jobId: `r${round}-${Math.floor(i / 640)}`, node: `cn${String(i % 64).padStart(3, "0")}`,
      time: new Date(DAY + 3_600_000 + Math.floor(i / 64) * 10_000).toISOString(), user: "alice",
      memory: { currentBytes: memory, peakBytes: memory + 4096, limitBytes: 2 ** 34, anonBytes: memory - 8192, fileBytes: 8192 },
      cpu: { usageSeconds: i * 0.25, userSeconds: i * 0.2, systemSeconds: i * 0.05, limitCores: 4 },
      io: { readBytes: i * 4096, writeBytes: i * 1024, readOps: i, writeOps: i },
      pids: 5 + (i % 7),
    });
  }
  return out;
}
const dir = await mkdtemp(join(tmpdir(), "prof-pg-"));
const pgs = new EmbeddedPostgres({ dir });
const url = await pgs.start();
const { storage, close } = await openStorage({ url, timescale: "off" });
for (let r = 0; r < 4; r++) {
  const s = samples(2000, r);
  let t = performance.now();
  const body = encodeExportMetricsRequest(encodeObservations(s));
  const tEnc = performance.now() - t;
  t = performance.now();
  const req = decodeExportMetricsRequest(body);
  const tDec = performance.now() - t;
  t = performance.now();
  const obs = decodeObservations(req);
  const tObs = performance.now() - t;
  t = performance.now();
  const res = await storage.samples.insert(obs.samples);
  const tIns = performance.now() - t;
  console.log({ bytes: body.length, tEnc, tDec, tObs, tIns, res, rejected: obs.rejected.count });
}
await close();
await pgs.stop();
