import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Prediction, type ResourcePrediction, validateSubmissionEdit } from "@jobsight/schemas";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { detectFormat } from "./detect-format.js";
import { editSubmission, parseSubmission, planSubmissionEdit } from "./edit-submission.js";

const GiB = 2 ** 30;
const ok = (resource: ResourcePrediction["resource"], value: number): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "walltime"
      ? "seconds"
      : resource === "cores"
        ? "cores"
        : resource === "gpus"
          ? "devices"
          : "bytes",
  value,
  confidence: 0.95,
  evidence: { group: "user=alice", jobs: 12 },
});
const live = (...resources: ResourcePrediction[]): Prediction => ({
  id: "p_1",
  createdAt: "2026-12-01T10:00:00Z",
  mode: "live",
  modelVersion: "m",
  cluster: "hpc1",
  user: "alice",
  resources,
});
const script =
  "#!/bin/bash\n#SBATCH --mem=64G\n#SBATCH --time=2-00:00:00\n#SBATCH --gres=gpu:2\npython train.py\n";
const manifest =
  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      limits: {memory: 64Gi, nvidia.com/gpu: 2}\n";

describe("editSubmission", () => {
  it("edits an sbatch script into a schema-valid SubmissionEdit with a diff", () => {
    const edit = editSubmission(script, live(ok("memory", 24 * GiB), ok("walltime", 7200)), undefined, {
      fileName: "train.sbatch",
    });
    expect(validateSubmissionEdit(edit).ok).toBe(true);
    expect(edit.format).toBe("sbatch");
    expect(edit.text).toBe(script.replace("--mem=64G", "--mem=24G").replace("2-00:00:00", "02:00:00"));
    expect(edit.diff).toContain("--- a/train.sbatch\n+++ b/train.sbatch\n");
    expect(edit.diff).toContain(
      "-#SBATCH --mem=64G\n-#SBATCH --time=2-00:00:00\n+#SBATCH --mem=24G\n+#SBATCH --time=02:00:00\n",
    );
  });

  it("edits a manifest, detected from its content", () => {
    const edit = editSubmission(manifest, live(ok("memory", 24 * GiB)));
    expect(edit.format).toBe("kubernetes");
    expect(edit.text).toBe(manifest.replace("64Gi", "24Gi"));
    expect(edit.diff).toContain("--- a/manifest.yaml");
  });

  it("never touches a resource the policy leaves alone, nor lowers a neverLower one", () => {
    const prediction = live(ok("memory", 24 * GiB), ok("gpus", 1), ok("walltime", 7200));
    for (const text of [script, manifest]) {
      const plan = planSubmissionEdit(text, prediction, {
        name: "p",
        leaveAlone: ["memory"],
        neverLower: ["gpus"],
      });
      const before = parseSubmission(text, { cluster: "hpc1", user: "alice" }).spec.requested;
      const after = parseSubmission(plan.edit.text, { cluster: "hpc1", user: "alice" }).spec.requested;
      expect(after.memoryBytes).toBe(before.memoryBytes);
      expect(after.gpus).toBe(before.gpus);
      expect(plan.edit.changes.map((c) => c.resource)).not.toContain("memory");
      expect(plan.skipped.map((s) => s.resource)).toEqual(expect.arrayContaining(["memory", "gpus"]));
    }
  });

  it("writes a diff that jsdiff's applyPatch turns the submission into the edited text with", () => {
    const prediction = live(ok("memory", 24 * GiB), ok("gpus", 1), ok("walltime", 7200));
    for (const text of [script, manifest, script.replaceAll("\n", "\r\n"), script.slice(0, -1)]) {
      const edit = editSubmission(text, prediction);
      expect(edit.diff).not.toBe("");
      expect(applyPatch(text, edit.diff, { autoConvertLineEndings: false })).toBe(edit.text);
    }
  });

  it("names the model and prediction above the diff, and git apply still applies it", () => {
    const prediction = { ...live(ok("memory", 24 * GiB)), id: "p_42", modelVersion: "m-2026-12-05" };
    const edit = editSubmission(script, prediction, undefined, { fileName: "train.sbatch" });
    const lines = edit.diff.split("\n");
    expect(lines[0]).toBe("# Jobsight: model m-2026-12-05, prediction p_42");
    expect(lines.slice(1, 3)).toEqual(["--- a/train.sbatch", "+++ b/train.sbatch"]);
    const dir = mkdtempSync(join(tmpdir(), "jobsight-edit-"));
    try {
      writeFileSync(join(dir, "train.sbatch"), script);
      writeFileSync(join(dir, "advice.diff"), edit.diff);
      execFileSync("git", ["apply", "advice.diff"], { cwd: dir, stdio: "pipe" });
      expect(readFileSync(join(dir, "train.sbatch"), "utf8")).toBe(edit.text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("changes nothing in shadow mode, where there is no recommendation", () => {
    const shadow: Prediction = { ...live(), mode: "shadow", notice: "shadow mode" };
    const edit = editSubmission(script, shadow);
    expect(edit).toEqual({ format: "sbatch", text: script, diff: "", changes: [] });
  });

  it("detects the format from the file name, then the content", () => {
    expect(detectFormat("anything", "pod.yaml")).toBe("kubernetes");
    expect(detectFormat("apiVersion: v1", "job.sbatch")).toBe("sbatch");
    expect(detectFormat("#!/bin/bash\nrun\n")).toBe("sbatch");
    expect(detectFormat('{"kind": "Pod"}')).toBe("kubernetes");
    expect(detectFormat("kind: Job\n")).toBe("kubernetes");
  });
});
