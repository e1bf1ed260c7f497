import { encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
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
const mode = process.argv[2];
for (let k = 0; k < 15; k++) for (const body of bodies) { const r = readExportRequestProtobuf(body); if (mode === "obs") decodeObsSrc(r); }
