import type { NodeEvent } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { gpuLostEvent, xidEvent } from "../../scenarios/kernel-events.js";
import { gpuLosses } from "./gpu-losses.js";

const HOUR = 3600;
const at = "2026-11-09T10:25:42Z";
const later = (seconds: number) => new Date(Date.parse(at) + seconds * 1000).toISOString();
const xid = (code: number, pci = "0000:47:00", time = at, node = "gpu14") =>
  xidEvent({ cluster: "hpc1", node, time, pci, code, detail: "GPU has fallen off the bus." });
const lost = (pci = "0000:47:00.0", time = later(8), node = "gpu14") =>
  gpuLostEvent({ cluster: "hpc1", node, time, pci, exitCode: 15 });

describe("gpuLosses", () => {
  it("counts a GPU lost to nvidia-smi and to the kernel's Xid 79 once, whatever each calls its address", () => {
    const x = xid(79);
    const l = gpuLostEvent({
      cluster: "hpc1",
      node: "gpu14",
      time: later(8),
      pci: "00000000:47:00.0",
      exitCode: 15,
      xid: { code: 79, pci: "0000:47:00", time: at, detail: "GPU has fallen off the bus." },
    });
    const { losses, rest } = gpuLosses([l, x], HOUR);
    expect(rest).toEqual([]);
    expect(losses).toHaveLength(1);
    expect(losses[0]).toMatchObject({ node: "gpu14", pci: "0000:47:00", time: at });
    expect(losses[0].xids).toEqual([x]);
    expect(losses[0].lost).toEqual([l]);
  });

  it("keeps nvidia-smi's repeated reports of one GPU as one loss, and a loss hours later as another", () => {
    const { losses } = gpuLosses(
      [lost(), lost(undefined, later(600)), lost(undefined, later(3 * HOUR))],
      HOUR,
    );
    expect(losses.map((l) => l.lost.length)).toEqual([2, 1]);
  });

  it("keeps losses of two GPUs, or of the same address on two nodes, apart", () => {
    const { losses, rest } = gpuLosses(
      [xid(79), lost(), xid(79, "0000:4e:00"), lost("0000:4E:00.0"), lost("0000:47:00.0", later(9), "gpu15")],
      HOUR,
    );
    expect(losses.map((l) => [l.node, l.pci, l.xids.length, l.lost.length])).toEqual([
      ["gpu14", "0000:47:00", 1, 1],
      ["gpu14", "0000:4e:00", 1, 1],
      ["gpu15", "0000:47:00", 0, 1],
    ]);
    expect(rest).toEqual([]);
  });

  it("leaves out of a loss the job's own Xids, Xids on other GPUs and Xids far from it", () => {
    const own = xid(13, "0000:47:00", later(-5));
    const other = xid(48, "0000:07:00");
    const long = xid(79, "0000:47:00", later(-2 * HOUR));
    const alone: NodeEvent = xid(79, "0000:0f:00");
    const { losses, rest } = gpuLosses([own, other, long, alone, lost()], HOUR);
    expect(losses).toHaveLength(1);
    expect(losses[0].xids).toEqual([]);
    expect(rest).toEqual([long, own, other, alone]);
  });
});
