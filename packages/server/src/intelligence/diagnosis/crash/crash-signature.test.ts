import type { JobRecord } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "../diagnose.js";
import { checkEvidence } from "../evidence-check.js";
import type { JobLogLine } from "../input.js";
import { crashScenarios } from "../scenarios/crash-scenarios.js";
import { crashSignature } from "./crash-signature.js";

const out = (...lines: string[]): JobLogLine[] => lines.map((line) => ({ source: "stderr", line }));

describe("crashSignature", () => {
  it("names the last exception of a chained Python traceback", () => {
    const c = crashSignature(
      out(
        "Traceback (most recent call last):",
        '  File "load.py", line 3, in <module>',
        "KeyError: 'lr'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "load.py", line 5, in <module>',
        "    raise SystemExit(2)",
        "ValueError: config has no learning rate",
      ),
      { state: "FAILED", exitCode: 1 },
    );
    expect(c).toMatchObject({ cause: "python_exception", detail: "ValueError: config has no learning rate" });
    expect(c!.lines.map((l) => l.line)).toEqual([
      "Traceback (most recent call last):",
      "ValueError: config has no learning rate",
    ]);
  });

  it("does not blame a traceback or a CUDA error for a job stopped from outside (SIGKILL, SIGTERM)", () => {
    const lines = out(
      "Traceback (most recent call last):",
      '  File "train.py", line 3, in <module>',
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    );
    expect(crashSignature(lines, { state: "FAILED", exitCode: 1 })?.cause).toBe("cuda_out_of_memory");
    expect(crashSignature(lines, { state: "FAILED", exitCode: 137 })).toBeUndefined();
    expect(crashSignature(lines, { state: "FAILED", signal: 15 })).toBeUndefined();
  });

  it("puts a CUDA out-of-memory before the traceback it ends", () => {
    const c = crashSignature(
      out("Traceback (most recent call last):", "RuntimeError: CUDA error: out of memory"),
      { state: "FAILED", exitCode: 1 },
    );
    expect(c?.cause).toBe("cuda_out_of_memory");
  });

  it("reads MPICH's and Open MPI's abort lines with their error code", () => {
    const mpich = crashSignature(out("application called MPI_Abort(MPI_COMM_WORLD, 17) - process 5"), {
      state: "FAILED",
      exitCode: 17,
    });
    expect(mpich).toMatchObject({ cause: "mpi_abort", detail: "17" });
    const ompi = crashSignature(
      out("MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD", "with errorcode 4."),
      { state: "FAILED", exitCode: 4 },
    );
    expect(ompi).toMatchObject({ cause: "mpi_abort", detail: "4" });
  });

  it("tells a segfault from the signal alone, from srun's line alone, and neither from a plain exit", () => {
    expect(crashSignature([], { state: "FAILED", signal: 11 })).toMatchObject({
      cause: "segfault",
      signalled: true,
    });
    expect(crashSignature([], { state: "COMPLETED", exitCode: 0, derivedSignal: 11 })?.cause).toBe(
      "segfault",
    );
    const srun = crashSignature(out("srun: error: cn012: task 0: Segmentation fault (core dumped)"), {
      state: "FAILED",
      exitCode: 0,
    });
    expect(srun).toMatchObject({ cause: "segfault", signalled: false });
    expect(crashSignature(out("error: no input"), { state: "FAILED", exitCode: 2 })).toBeUndefined();
  });
});

describe("the job-error finding of a crash", () => {
  it("gives each crash its own claim, citing its stderr lines with their file and the exit code", () => {
    const claims = new Set<string>();
    for (const s of crashScenarios) {
      const d = diagnose(s.input, { now: "2026-12-01T00:00:00Z" });
      const f = d.findings.find((x) => x.kind === "job_error")!;
      claims.add(f.claim.split(" and ")[0]);
      expect(checkEvidence(d, s.input)).toEqual([]);
      const logs = f.evidence.filter((e) => e.kind === "log");
      expect(logs.length).toBeGreaterThan(0);
      for (const e of logs) {
        expect(e).toMatchObject({ source: "stderr", metric: "outcome.stderrTail" });
        expect(e.text).toContain(s.input.record.outcome!.stderrTail!.path);
      }
      expect(f.evidence.some((e) => e.kind === "scheduler" && e.metric === "outcome.exitCode")).toBe(true);
    }
    expect(claims.size).toBe(4);
  });

  it("cites DerivedExitCode when only a step was killed by SIGSEGV", () => {
    const s = crashScenarios[0];
    const outcome = { state: "FAILED" as const, exitCode: 0, derivedSignal: 11 };
    const record: JobRecord = { ...s.input.record, outcome };
    const input = { ...s.input, record };
    const d = diagnose(input, { now: "2026-12-01T00:00:00Z" });
    const f = d.findings.find((x) => x.kind === "job_error")!;
    expect(f.claim).toContain("segmentation fault");
    expect(f.evidence).toContainEqual(
      expect.objectContaining({ metric: "outcome.derivedSignal", values: [11] }),
    );
    expect(checkEvidence(d, input)).toEqual([]);
  });
});
