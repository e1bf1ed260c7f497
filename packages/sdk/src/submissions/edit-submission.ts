import type { Policy, Prediction, SubmissionEdit } from "@jobsight/schemas";
import { detectFormat, type SubmissionFormat } from "./detect-format.js";
import { type CurrentRequest, planEdit, type ResourceTargets, type SkippedResource } from "./edit-plan.js";
import { editManifest } from "./kubernetes/edit-manifest.js";
import { parseManifest } from "./kubernetes/parse-manifest.js";
import { editSbatch } from "./sbatch/edit-sbatch.js";
import { analyseSbatch, parseSbatch } from "./sbatch/parse-sbatch.js";
import { lastOption } from "./sbatch/sbatch-directives.js";
import type { ParsedSubmission, SubmissionContext } from "./submission-context.js";
import { unifiedDiff } from "./unified-diff.js";

/** Options of {@link editSubmission} and {@link planSubmissionEdit}. */
export type EditSubmissionOptions = {
  /** The format; detected from `fileName` and the text when omitted. */
  format?: SubmissionFormat;
  /**
   * File name shown in the diff headers (`a/<name>`, `b/<name>`, below a line naming the model and
   * the prediction the advice comes from) and used to detect the format.
   * @default "job.sbatch" or "manifest.yaml"
   */
  fileName?: string;
  /** Kubernetes: the workload to edit (id such as `Job/train`, name or Argo template). */
  workload?: string;
  /** Kubernetes: the container to resize; the workload's first by default. */
  container?: string;
};

/** An edit with what it did not change and why, for a person to read. */
export type SubmissionEditPlan = {
  edit: SubmissionEdit;
  format: SubmissionFormat;
  /** What the policy allowed to be written, per resource, for the whole job. */
  targets: ResourceTargets;
  skipped: SkippedResource[];
};

function currentRequest(
  text: string,
  format: SubmissionFormat,
  prediction: Prediction,
  workload?: string,
): CurrentRequest {
  if (format === "sbatch") {
    const layout = analyseSbatch(text);
    return {
      requested: layout.requested,
      partition: lastOption(layout.directives.options, "partition")?.value,
    };
  }
  const parsed = parseManifest(text, { cluster: prediction.cluster, user: prediction.user, workload });
  return {
    requested: parsed.spec.requested,
    partition: parsed.spec.partition,
    namespace: parsed.spec.account,
    labels: parsed.labels,
    scheduler: "kubernetes",
  };
}

/**
 * Like {@link editSubmission}, and also say what was left as it was and why.
 *
 * @example
 * ```ts
 * const { edit, skipped } = planSubmissionEdit(script, prediction, policy, { fileName: "train.sbatch" });
 * for (const s of skipped) console.log(`${s.resource}: ${s.reason}`);
 * ```
 */
export function planSubmissionEdit(
  text: string,
  prediction: Prediction,
  policy?: Policy,
  options: EditSubmissionOptions = {},
): SubmissionEditPlan {
  const format = options.format ?? detectFormat(text, options.fileName);
  const current = currentRequest(text, format, prediction, options.workload);
  const plan = planEdit(prediction, policy, current);
  const result =
    format === "sbatch"
      ? editSbatch(text, plan.targets)
      : editManifest(text, plan.targets, { workload: options.workload, container: options.container });
  const name = options.fileName ?? (format === "sbatch" ? "job.sbatch" : "manifest.yaml");
  const changes = unifiedDiff(text, result.text, { fromName: `a/${name}`, toName: `b/${name}` });
  // Which model's advice this is, above the headers: patch and git apply skip text before `---`.
  const diff =
    changes && `# Jobsight: model ${prediction.modelVersion}, prediction ${prediction.id}\n${changes}`;
  return {
    edit: { format, text: result.text, diff, changes: result.changes },
    format,
    targets: plan.targets,
    skipped: [...plan.skipped, ...result.skipped],
  };
}

/**
 * Turn a prediction into an edit of the user's own submission (an sbatch script or a Kubernetes
 * manifest) under the platform team's policy: only the resource lines change, every other byte
 * (comments, blank lines, CRLF, YAML layout and quoting) stays; missing resources are added
 * (after the last `#SBATCH` line; under the container's `resources`); resources the policy leaves
 * alone are never touched and `neverLower` resources never lowered.
 *
 * @example
 * ```ts
 * const edit = editSubmission(script, prediction, { name: "default", neverLower: ["gpus"] });
 * console.log(edit.diff);
 * ```
 */
export function editSubmission(
  text: string,
  prediction: Prediction,
  policy?: Policy,
  options: EditSubmissionOptions = {},
): SubmissionEdit {
  return planSubmissionEdit(text, prediction, policy, options).edit;
}

/**
 * Read a submission into a `JobSpec`, whichever its format.
 *
 * @example
 * ```ts
 * const { spec, warnings } = parseSubmission(text, { cluster: "hpc1", user: "alice", fileName: "job.sbatch" });
 * ```
 */
export function parseSubmission(
  text: string,
  context: SubmissionContext & Pick<EditSubmissionOptions, "format" | "fileName" | "workload">,
): ParsedSubmission {
  const format = context.format ?? detectFormat(text, context.fileName);
  if (format === "kubernetes") return parseManifest(text, context);
  return parseSbatch(text, context);
}
