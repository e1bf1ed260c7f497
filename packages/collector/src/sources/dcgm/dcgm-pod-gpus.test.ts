import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { NodeGpus } from "../../modes/node-gpus.js";
import { ProcReader } from "../proc-reader.js";
import { DcgmExporter } from "./dcgm-exporter.js";

const fixture = readFileSync(
  join(import.meta.dirname, "fixtures", "dcgm-exporter-mig-kubernetes.prom"),
  "utf8",
);
const MiB = 1024 * 1024;
const TRAIN = "4a5b6c7d-1111-2222-3333-444455556666";
const INFER = "9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff";

let server: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = dir = undefined;
});

it("gives each pod the whole GPU or MIG instance dcgm-exporter maps to it", async () => {
  server = createServer((_req, res) => res.end(fixture));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  dir = mkdtempSync(join(tmpdir(), "jobsight-pods-"));
  mkdirSync(join(dir, `ml_train-0_${TRAIN}`));
  mkdirSync(join(dir, `ml_infer-1_${INFER}`));
  const dcgm = new DcgmExporter({ url });
  await dcgm.scrape();
  const gpus = new NodeGpus({
    cluster: "k1",
    node: "gpu07",
    smi: dcgm,
    proc: new ProcReader({ root: join(dir, "no-proc") }),
    podLogsDir: dir,
    podResourcesSocket: join(dir, "no-kubelet.sock"),
  });
  const { byJob } = await gpus.assign(undefined, new Map(), () => undefined, new Set([TRAIN, INFER]));
  gpus.close();
  expect(byJob.get(TRAIN)).toEqual([expect.objectContaining({ index: 0, utilizationPercent: 93 })]);
  // The 1g.5gb instance, not its parent GPU nor the idle 3g.20gb instance beside it.
  expect(byJob.get(INFER)).toEqual([
    expect.objectContaining({ index: 1, memoryUsedBytes: 2995 * MiB, memoryTotalBytes: 4868 * MiB }),
  ]);
});
