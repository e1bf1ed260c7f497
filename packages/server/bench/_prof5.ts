import { encodeExportMetricsRequest, encodeObservations, decodeObservations, decodeExportMetricsRequest } from "@jobsight/otel-bridge";
import { validateProtobuf } from "../../otel-bridge/src/protobuf-validate.js";
import { otlpMessageTypes } from "../../otel-bridge/src/otlp-proto.js";
import { readExportRequest } from "../../otel-bridge/src/read-otlp.js";
import { readExportRequestProtobuf } from "../../otel-bridge/src/read-protobuf.js";
import { decodeObservations as decodeObsSrc } from "../../otel-bridge/src/decode-observations.js";
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
const bodies = [0,1,2,3].map((r) => encodeExportMetricsRequest(encodeObservations(samples(2000, r))));
const type = otlpMessageTypes.exportRequest;
const best = { old: 1e9, fast: 1e9, obs: 1e9, dist: 1e9, distObs: 1e9 };
const now = () => performance.now();
for (let k = 0; k < 12; k++) {
  for (const body of bodies) {
    let t = now(); validateProtobuf(body, type); readExportRequest(type.decode(body)); const a = now() - t;
    t = now(); const r = readExportRequestProtobuf(body); const b = now() - t;
    t = now(); decodeObsSrc(r); const c = now() - t;
    t = now(); const d = decodeExportMetricsRequest(body); const e = now() - t;
    t = now(); decodeObservations(d); const f = now() - t;
    best.dist = Math.min(best.dist, e); best.distObs = Math.min(best.distObs, f);
    best.old = Math.min(best.old, a); best.fast = Math.min(best.fast, b); best.obs = Math.min(best.obs, c);
  }
}
for (const k of Object.keys(best)) (best as any)[k] = Math.round((best as any)[k]);
console.log("best ms per 2000 samples:", best);
