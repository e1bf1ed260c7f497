import { createHash } from "node:crypto";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Policy, type Prediction, validatePolicy } from "@jobsight/schemas";
import type { SubmissionFormat } from "../../submissions/detect-format.js";
import { requestField } from "../../submissions/edit-plan.js";
import {
  parseSubmission,
  planSubmissionEdit,
  type SubmissionEditPlan,
} from "../../submissions/edit-submission.js";
import type { ParsedSubmission } from "../../submissions/submission-context.js";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { formatRange, formatResourceValue } from "../format-values.js";
import { helpTexts } from "../help.js";
import { ProgressBar } from "../progress-bar.js";
import { renderTable } from "../table.js";
import { colourDiff, createStyle, type Style } from "../terminal-style.js";
import { adjustmentNotes } from "./adjustment-notes.js";
import { connect, connectionOptions, submittingUser } from "./connection-options.js";

const BATCH = 100;

type FileResult = {
  file: string;
  parsed: ParsedSubmission;
  prediction: Prediction;
  plan: SubmissionEditPlan;
  applied: boolean;
  backup?: string;
};

async function readPolicy(path: string | undefined, io: CliIo): Promise<Policy | undefined> {
  if (path === undefined) return undefined;
  const text = await readFile(resolve(io.cwd, path), "utf8").catch((e: Error) => {
    throw new UsageError(`--policy ${path}: ${e.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--policy ${path}: not JSON (${(e as Error).message})`);
  }
  const result = validatePolicy(value);
  if (!result.ok)
    throw new UsageError(
      `--policy ${path}:\n  ${result.errors.map((e) => `${e.path || "/"}: ${e.message}`).join("\n  ")}`,
    );
  return result.value;
}

function printResult(r: FileResult, style: Style, io: CliIo): void {
  const out = io.stdout;
  const p = r.prediction;
  out.write(
    `${style.bold(r.file)}  ${style.dim(`${r.plan.format} · prediction ${p.id} · model ${p.modelVersion} · ${p.mode}`)}\n`,
  );
  if (p.notice) out.write(`${style.yellow(p.notice)}\n`);
  if (p.resources.length > 0) {
    const rows = p.resources.map((rp) => {
      const asked =
        rp.requested ?? (r.parsed.spec.requested[requestField[rp.resource]] as number | undefined);
      const requested = formatResourceValue(rp.resource, asked);
      if (rp.status === "ok") {
        const confidence = `${Math.round(rp.confidence * 100)}%`;
        return [
          rp.resource,
          requested,
          style.bold(formatResourceValue(rp.resource, rp.value)),
          formatRange(rp.resource, rp.low, rp.high),
          confidence,
        ];
      }
      return [
        rp.resource,
        requested,
        style.dim("—"),
        style.dim("—"),
        style.dim(`insufficient evidence: ${rp.reason}`),
      ];
    });
    // The range ends at the recommendation; the confidence is the measured share of similar jobs
    // whose use fell inside it.
    out.write(`\n${renderTable(["resource", "requested", "recommended", "likely use", "confidence"], rows)}`);
    for (const line of adjustmentNotes(p.resources)) out.write(`${style.dim(line)}\n`);
  }
  for (const s of r.plan.skipped) {
    // The table already says which resources lacked evidence; other reasons are news.
    if (!s.reason.startsWith("insufficient evidence") || p.resources.every((x) => x.resource !== s.resource))
      out.write(style.dim(`not changed: ${s.resource} — ${s.reason}\n`));
  }
  if (r.plan.edit.diff) {
    out.write(`\n${colourDiff(r.plan.edit.diff, style)}`);
    out.write(
      r.applied
        ? style.green(`\napplied to ${r.file} (the original is kept as ${r.backup})\n`)
        : style.dim(`\nrun with --apply to write it (the original is kept as ${r.file}.bak)\n`),
    );
  } else {
    out.write(style.dim("\nno change to suggest\n"));
  }
}

/** `jobsight predict <file>...`: predict, show the table and the diff, optionally apply. */
export async function runPredict(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      apply: { type: "boolean" },
      json: { type: "boolean" },
      cluster: { type: "string" },
      user: { type: "string" },
      policy: { type: "string" },
      workload: { type: "string" },
      container: { type: "string" },
      format: { type: "string" },
    },
  });
  if (values.help) {
    io.stdout.write(helpTexts.predict);
    return exitCodes.ok;
  }
  if (positionals.length === 0)
    throw new UsageError("predict needs a submission file: jobsight predict job.sbatch");
  if (values.format !== undefined && values.format !== "sbatch" && values.format !== "kubernetes") {
    throw new UsageError(`--format must be sbatch or kubernetes, not ${values.format}`);
  }
  const format = values.format as SubmissionFormat | undefined;
  const { config, client } = await connect(values, io);
  if (!config.cluster)
    throw new UsageError(
      'no cluster: pass --cluster, set JOBSIGHT_CLUSTER, or put "cluster" in the config file',
    );
  const user = submittingUser(config, io);
  const policy = await readPolicy(values.policy, io);

  const inputs = await Promise.all(
    positionals.map(async (file) => {
      const path = resolve(io.cwd, file);
      const text = await readFile(path, "utf8").catch((e: Error) => {
        throw new UsageError(`${file}: ${e.message}`);
      });
      const name = relative(io.cwd, path) || file;
      const parsed = parseSubmission(text, {
        cluster: config.cluster!,
        user,
        format,
        fileName: name,
        workload: values.workload,
      });
      parsed.spec.scriptHash = createHash("sha256").update(text).digest("hex");
      for (const w of parsed.warnings) io.stderr.write(`warning: ${name}: ${w}\n`);
      return { path, name, text, parsed };
    }),
  );

  const predictions: Prediction[] = [];
  if (inputs.length === 1) {
    predictions.push(await client.predictions.create({ spec: inputs[0].parsed.spec }));
  } else {
    const bar = new ProgressBar({ total: inputs.length, stream: io.stderr, label: "predicting" });
    for (let i = 0; i < inputs.length; i += BATCH) {
      const chunk = inputs.slice(i, i + BATCH);
      const batch = await client.predictions.createBatch(chunk.map((x) => ({ spec: x.parsed.spec })));
      predictions.push(...batch.predictions);
      bar.tick(chunk.length);
    }
    bar.finish();
  }

  const results: FileResult[] = [];
  for (const [i, input] of inputs.entries()) {
    const plan = planSubmissionEdit(input.text, predictions[i], policy, {
      format,
      fileName: input.name,
      workload: values.workload,
      container: values.container,
    });
    const result: FileResult = {
      file: input.name,
      parsed: input.parsed,
      prediction: predictions[i],
      plan,
      applied: false,
    };
    if (values.apply && plan.edit.text !== input.text) {
      result.backup = `${input.name}.bak`;
      await copyFile(input.path, `${input.path}.bak`);
      await writeFile(input.path, plan.edit.text);
      result.applied = true;
    }
    results.push(result);
  }

  if (values.json) {
    const docs = results.map((r) => ({
      file: r.file,
      format: r.plan.format,
      spec: r.parsed.spec,
      warnings: r.parsed.warnings,
      prediction: r.prediction,
      edit: r.plan.edit,
      skipped: r.plan.skipped,
      applied: r.applied,
      ...(r.backup ? { backup: r.backup } : {}),
    }));
    io.stdout.write(`${JSON.stringify(docs.length === 1 ? docs[0] : docs, null, 2)}\n`);
    return exitCodes.ok;
  }
  const style = createStyle(io.stdout, io.env);
  results.forEach((r, i) => {
    if (i > 0) io.stdout.write("\n");
    printResult(r, style, io);
  });
  return exitCodes.ok;
}
