import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeGpus } from "../../modes/node-gpus.js";
import { fakeCommand } from "../../test-support/fake-command.js";
import { type FakeKubelet, startFakeKubelet } from "../../test-support/fake-kubelet.js";
import { ProcTree } from "../../test-support/proc-tree.js";
import { ProcJobAttribution } from "../proc-job-attribution.js";
import { ProcReader } from "../proc-reader.js";
import { DcgmExporter } from "./dcgm-exporter.js";

// A MIG instance reaches the job the scheduler gave it: SLURM's CUDA_VISIBLE_DEVICES and the
// kubelet's PodResources name it by MIG UUID, dcgm-exporter by parent GPU and GPU_I_ID, and
// nvidia-smi (-L, -q -x) ties the two.

const dcgmText = readFileSync(
  join(import.meta.dirname, "fixtures", "dcgm-exporter-mig-kubernetes.prom"),
  "utf8",
);
// The same node with dcgm-exporter's Kubernetes mapping off, as on a SLURM node: no pod labels.
const dcgmSlurm = dcgmText.replace(/,container="[^"]*",namespace="[^"]*",pod="[^"]*"/g, "");
const gpuFixtures = join(import.meta.dirname, "..", "gpu", "fixtures");
const smiScript = [
  'case "$1" in',
  `  -L) cat '${join(gpuFixtures, "nvidia-smi-list-mig.txt")}' ;;`,
  `  -q) cat '${join(gpuFixtures, "nvidia-smi-query-mig.xml")}' ;;`,
  "  *) exit 1 ;;",
  "esac",
].join("\n");
const MiB = 1024 * 1024;
const PARENT = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";
const SMALL = "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"; // GI 13, 1g.5gb
const LARGE = "MIG-2f0b7c5e-8d1a-5e3b-9c4d-6a7b8c9d0e1f"; // GI 2, 3g.20gb, no pod in dcgm-exporter's mapping
const POD = "5e6f7a8b-1111-4222-8333-944455556666";

let server: Server | undefined;
let kubelet: FakeKubelet | undefined;
let dir: string;
let proc: ProcTree;
const cleanups: Array<() => void> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "jobsight-mig-"));
  proc = new ProcTree();
});
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await kubelet?.stop();
  server = kubelet = undefined;
  for (const c of cleanups.splice(0)) c();
  proc.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function dcgm(body: string, withSmi = true): Promise<DcgmExporter> {
  server ??= createServer((_req, res) => res.end(body));
  if (!server.listening) await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  const smi = fakeCommand("nvidia-smi", smiScript);
  cleanups.push(smi.cleanup);
  const source = new DcgmExporter({ url, ...(withSmi ? { nvidiaSmi: smi.path } : {}) });
  await source.scrape();
  return source;
}

function nodeGpus(smi: DcgmExporter, reader: ProcReader, socket = join(dir, "no-kubelet.sock")): NodeGpus {
  return new NodeGpus({
    cluster: "c1",
    node: "gpu07",
    smi,
    proc: reader,
    podLogsDir: dir,
    podResourcesSocket: socket,
  });
}

describe("MIG instances given by the scheduler", () => {
  it("go to the SLURM job whose CUDA_VISIBLE_DEVICES names them, not its MIG GRES index as a GPU", async () => {
    // SLURM_JOB_GPUS counts the job's MIG GRES (0), which is not /dev/nvidia0.
    proc.add({
      pid: 40,
      comm: "python",
      cgroup: "0::/system.slice/slurmstepd.scope/job_71/step_0/user/task_0\n",
      environ: { SLURM_JOB_GPUS: "0", CUDA_VISIBLE_DEVICES: SMALL },
    });
    const reader = new ProcReader({ root: proc.root });
    const jobs = new ProcJobAttribution({ proc: reader }).scan();
    const gpus = nodeGpus(await dcgm(dcgmSlurm), reader);
    const { byJob } = await gpus.assign(jobs, new Map(), () => undefined);
    gpus.close();
    expect(byJob.get("71")).toEqual([
      {
        index: 1,
        uuid: PARENT,
        pciBusId: "00000000:0F:00.0",
        utilizationPercent: expect.closeTo(99.5687, 3),
        memoryUsedBytes: 2995 * MiB,
        memoryTotalBytes: 4868 * MiB,
        temperatureCelsius: 41,
        mig: { gpuInstanceId: 13, profile: "1g.5gb", uuid: SMALL },
      },
    ]);
  });

  it("go unmatched, not to their whole GPU, when nvidia-smi cannot say where a MIG UUID lives", async () => {
    proc.add({
      pid: 40,
      comm: "python",
      cgroup: "0::/system.slice/slurmstepd.scope/job_71/step_0/user/task_0\n",
      environ: { CUDA_VISIBLE_DEVICES: SMALL },
    });
    const reader = new ProcReader({ root: proc.root });
    const gpus = nodeGpus(await dcgm(dcgmSlurm, false), reader);
    const { byJob } = await gpus.assign(
      new ProcJobAttribution({ proc: reader }).scan(),
      new Map(),
      () => undefined,
    );
    gpus.close();
    expect(byJob.has("71")).toBe(false);
  });

  it("go to the pod the kubelet lists them for, though dcgm-exporter's mapping names no pod", async () => {
    kubelet = await startFakeKubelet(join(dir, "kubelet.sock"), () => ({
      pod_resources: [
        {
          name: "vision-0",
          namespace: "ml",
          containers: [
            {
              name: "trainer",
              devices: [{ resource_name: "nvidia.com/mig-3g.20gb", device_ids: [LARGE] }],
              cpu_ids: [],
              memory: [],
              dynamic_resources: [],
            },
          ],
        },
      ],
    }));
    mkdirSync(join(dir, `ml_vision-0_${POD}`));
    const gpus = nodeGpus(await dcgm(dcgmText), new ProcReader({ root: proc.root }), kubelet.socketPath);
    const { byJob } = await gpus.assign(undefined, new Map(), () => undefined, new Set([POD]));
    gpus.close();
    expect(byJob.get(POD)).toEqual([
      expect.objectContaining({
        index: 1,
        memoryUsedBytes: 13 * MiB,
        utilizationPercent: 0,
        mig: { gpuInstanceId: 2, profile: "3g.20gb", uuid: LARGE },
      }),
    ]);
  });
});
