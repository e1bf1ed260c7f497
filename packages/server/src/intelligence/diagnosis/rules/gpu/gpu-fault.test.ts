import { describe, expect, it } from "vitest";
import { diagnose } from "../../diagnose.js";
import { checkEvidence } from "../../evidence-check.js";
import type { DiagnosisInput } from "../../input.js";
import { diagnosisScenarios } from "../../scenarios/all-scenarios.js";
import { gpuLostEvent } from "../../scenarios/kernel-events.js";

const NOW = "2026-12-01T00:00:00Z";
const scenario = (name: string): DiagnosisInput =>
  structuredClone(diagnosisScenarios.find((s) => s.name === name)!.input);

describe("gpu-fault with a lost GPU", () => {
  it("counts a loss reported by nvidia-smi and by the kernel's Xid once, and cites both", () => {
    const input = scenario("gpu-lost-nvidia-smi-and-xid");
    const d = diagnose(input, { now: NOW });
    const hw = d.findings.filter((f) => f.kind === "gpu_fault_hardware");
    expect(hw).toHaveLength(1);
    expect(hw[0].claim).toContain("One GPU was lost.");
    expect(hw[0].claim.match(/was lost at/g)).toHaveLength(1);
    expect(hw[0].evidence.map((e) => [e.source, e.metric, e.values])).toEqual([
      ["kmsg", "gpu_xid", [79]],
      ["nvidia-smi", "gpu_lost", [15]],
    ]);
    expect(d.findings.map((f) => f.kind)).not.toContain("gpu_fault_application");
    expect(checkEvidence(d, input)).toEqual([]);
  });

  it("still counts one loss when nvidia-smi reports the same GPU lost again after a collector restart", () => {
    const input = scenario("gpu-lost-nvidia-smi-and-xid");
    const again = {
      ...input.events[1],
      time: "2026-11-09T10:31:00Z",
      message: `${input.events[1].message} `,
    };
    const d = diagnose({ ...input, events: [...input.events, again] }, { now: NOW });
    const [hw] = d.findings.filter((f) => f.kind === "gpu_fault_hardware");
    expect(hw.claim).toContain("One GPU was lost.");
    expect(hw.claim).not.toMatch(/GPUs were lost|2 times/);
  });

  it("names the GPU and the time of a loss only nvidia-smi saw, says no Xid was read, and does not blame the job", () => {
    const input = scenario("gpu-lost-nvidia-smi-and-xid");
    const smiOnly = gpuLostEvent({
      cluster: "hpc1",
      node: "gpu14",
      time: "2026-11-09T10:25:50Z",
      jobId: "7350",
      pci: "0000:47:00.0",
      index: 2,
      exitCode: 15,
    });
    const d = diagnose({ ...input, events: [smiOnly], sourcesSeen: { kernelLog: false } }, { now: NOW });
    const [hw] = d.findings.filter((f) => f.kind === "gpu_fault_hardware");
    expect(hw.claim).toContain("GPU 2 (0000:47:00.0) on gpu14 was lost at 2026-11-09T10:25:50Z");
    expect(hw.claim).toContain("no Xid was seen (the kernel log of gpu14 was not read)");
    expect(hw.claim).toContain("points at the node, not at the job's code");
    expect(hw.severity).toBe("error");
    expect(d.unseen.map((u) => u.source)).toContain("kernel-log");
  });

  it("leaves a GPU lost on another job's GPU out of this job's diagnosis", () => {
    const input = scenario("gpu-lost-nvidia-smi-and-xid");
    const elsewhere = gpuLostEvent({
      cluster: "hpc1",
      node: "gpu14",
      time: "2026-11-09T10:25:50Z",
      pci: "0000:b1:00.0",
      exitCode: 15,
    });
    const d = diagnose({ ...input, events: [elsewhere] }, { now: NOW });
    expect(d.findings.map((f) => f.kind)).not.toContain("gpu_fault_hardware");
  });
});
