import {
  type ParsedSubmission,
  parseSubmission,
  planSubmissionEdit,
  type SubmissionEditPlan,
} from "@jobsight/sdk";
import { renderDiff } from "./diff-view.js";
import { errorLines } from "./error-message.js";
import { renderAdjustments, renderRecommendation } from "./recommendation-table.js";
import { samples } from "./samples.js";
import { clientFor, loadSettings, type Settings, saveSettings } from "./settings.js";
import type { Prediction } from "./types.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const inputs = {
  cluster: $<HTMLInputElement>("cluster"),
  user: $<HTMLInputElement>("user"),
  token: $<HTMLInputElement>("token"),
};
const submission = $<HTMLTextAreaElement>("submission");
const fileName = $<HTMLInputElement>("file-name");
const predictButton = $<HTMLButtonElement>("predict");
const applyButton = $<HTMLButtonElement>("apply");
const status = $("status");
const messages = $("messages");
const download = $<HTMLAnchorElement>("download");

/** The last prediction and the edit it gives, while the text it was made for is unchanged. */
let current: { text: string; plan: SubmissionEditPlan } | undefined;

function settings(): Settings {
  return { cluster: inputs.cluster.value.trim(), user: inputs.user.value.trim(), token: inputs.token.value };
}

function say(text: string): void {
  status.textContent = text;
}

function show(lines: string[], className = "error"): void {
  messages.replaceChildren(
    ...lines.map((line) => {
      const li = document.createElement("li");
      li.className = className;
      li.textContent = line;
      return li;
    }),
  );
}

function showResult(prediction: Prediction, parsed: ParsedSubmission, plan: SubmissionEditPlan): void {
  $("result").hidden = false;
  $("prediction-meta").textContent =
    `Prediction ${prediction.id} · model ${prediction.modelVersion} · ${prediction.mode}` +
    (prediction.notice ? ` · ${prediction.notice}` : "");
  renderRecommendation($<HTMLTableElement>("recommendation").tBodies[0], prediction, parsed);
  renderAdjustments($<HTMLUListElement>("adjustments"), prediction);
  renderDiff($("diff"), plan.edit.diff);
  $("skipped").replaceChildren(
    ...plan.skipped
      .filter((s) => prediction.resources.some((r) => r.resource === s.resource && r.status === "ok"))
      .map((s) =>
        Object.assign(document.createElement("li"), {
          textContent: `Not changed: ${s.resource} — ${s.reason}`,
        }),
      ),
  );
  applyButton.disabled = plan.edit.text === submission.value;
  download.hidden = true;
}

async function predict(): Promise<void> {
  const who = settings();
  if (!who.cluster || !who.user) {
    show(["Fill in the cluster and your user name first."]);
    return;
  }
  saveSettings(who);
  const text = submission.value;
  let parsed: ParsedSubmission;
  try {
    parsed = parseSubmission(text, {
      cluster: who.cluster,
      user: who.user,
      fileName: fileName.value || undefined,
    });
  } catch (error) {
    show([`This does not read as an sbatch script or a Kubernetes manifest: ${(error as Error).message}`]);
    return;
  }
  show(parsed.warnings, "warning");
  predictButton.disabled = true;
  say("Asking Jobsight…");
  try {
    const prediction = await clientFor(who).predictions.create({ spec: parsed.spec });
    const plan = planSubmissionEdit(text, prediction, undefined, { fileName: fileName.value || undefined });
    current = { text, plan };
    showResult(prediction, parsed, plan);
    say(plan.edit.diff ? "Here is what Jobsight recommends." : "No change to suggest.");
  } catch (error) {
    current = undefined;
    $("result").hidden = true;
    show(errorLines(error));
    say("");
  } finally {
    predictButton.disabled = false;
  }
}

function apply(): void {
  if (!current || submission.value !== current.text) {
    show(["The text changed since the prediction: predict again first."]);
    return;
  }
  submission.value = current.plan.edit.text;
  applyButton.disabled = true;
  const blob = new Blob([current.plan.edit.text], { type: "text/plain" });
  if (download.href.startsWith("blob:")) URL.revokeObjectURL(download.href);
  download.href = URL.createObjectURL(blob);
  download.download = fileName.value || "job.sbatch";
  download.textContent = `Download ${download.download}`;
  download.hidden = false;
  say("Applied: the text above is the edited submission.");
}

function load(sample: keyof typeof samples): void {
  submission.value = samples[sample].text;
  fileName.value = samples[sample].fileName;
  current = undefined;
  $("result").hidden = true;
}

const initial = loadSettings();
inputs.cluster.value = initial.cluster;
inputs.user.value = initial.user;
inputs.token.value = initial.token;
$("load-sbatch").addEventListener("click", () => load("sbatch"));
$("load-manifest").addEventListener("click", () => load("manifest"));
predictButton.addEventListener("click", () => void predict());
applyButton.addEventListener("click", apply);
document.body.dataset.ready = "true";
