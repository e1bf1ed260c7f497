import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadServerConfig, setPath } from "../../config/config-sources.js";
import { createObjectStore } from "../../data-plane/objects/create-object-store.js";
import { openStorage } from "../../data-plane/storage/open-storage.js";
import { IntelligenceService } from "../intelligence-service.js";
import type { ModelRecord } from "../registry/model-registry.js";
import type { TrainReport } from "./model-trainer.js";

const USAGE = `Usage: jobsight-server train [--config <file>] [--database-url <url>] [--data-dir <dir>] [--json]
       jobsight-server train --list | --rollback | --recalibrate

Trains the site's model on every ended job in the database, now (a running server picks the new
model up within its refresh interval). The model goes into service only if its backtest is not
worse than the active model's. --list shows the models, --rollback puts the previous one back,
--recalibrate refits the calibration of the model in service on the jobs that ended since (the
same trees, the next version <model>.c<n>).
`;

const pct = (x: number | undefined) => (x === undefined ? "-" : `${(x * 100).toFixed(1)}%`);

function describeReport(r: TrainReport): string {
  if (!r.trained) return `nothing trained: ${r.reason}\n`;
  const lines = [
    `model ${r.version}: ${r.accepted ? "in service" : "NOT in service (kept the active model)"}`,
    `trained on ${r.jobs} jobs in ${(r.trainSeconds ?? 0).toFixed(1)} s; resources: ${r.resources.join(", ")}`,
    "resource   evaluated  coverage  under-pred  weighted  slack    request slack",
  ];
  for (const [name, b] of Object.entries(r.backtest)) {
    lines.push(
      `${name.padEnd(10)} ${String(b.evaluated).padStart(9)}  ${pct(b.coverage).padStart(8)}  ${pct(b.underPredictionRate).padStart(10)}  ${pct(b.weightedUnderPredictionRate).padStart(8)}  ${pct(b.slack).padStart(7)}  ${pct(b.requestSlack).padStart(13)}`,
    );
  }
  for (const reason of r.decision?.reasons ?? []) lines.push(`  ${reason}`);
  return `${lines.join("\n")}\n`;
}

function describeModels(models: ModelRecord[]): string {
  return `${models
    .map(
      (m) =>
        `${m.version}  ${m.status.padEnd(11)} ${m.trigger.padEnd(8)} ${m.trainingJobs} jobs  ${m.resources.join(",")}`,
    )
    .join("\n")}\n`;
}

/**
 * `jobsight-server train`: trains a model now on the configured database (inline: the command has
 * nothing else to serve), prints its backtest and whether it went into service; `--list` and
 * `--rollback` manage the versions.
 *
 * @example
 * ```sh
 * jobsight-server train --database-url postgres://… --json
 * ```
 */
export async function runTrainCommand(args: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        "database-url": { type: "string" },
        "data-dir": { type: "string" },
        json: { type: "boolean" },
        list: { type: "boolean" },
        rollback: { type: "boolean" },
        recalibrate: { type: "boolean" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const overrides: Record<string, unknown> = {};
  if (values["database-url"]) setPath(overrides, "postgres.url", values["database-url"]);
  if (values["data-dir"]) setPath(overrides, "dataDir", values["data-dir"]);
  const config = await loadServerConfig({
    file: values.config as string | undefined,
    env: process.env,
    overrides,
  });
  const opened = await openStorage({
    url: config.postgres.url,
    embeddedDir: join(config.dataDir, "postgres"),
    embeddedBinDir: config.postgres.embeddedBinDir,
    // Never starts or stops the database of a running server: refused while one owns the folder.
    embeddedOwner: {
      kind: "command",
      name: "jobsight-server train",
      instead: () =>
        "let the running server train (it retrains by itself every intelligence.retrainIntervalHours)",
    },
    timescale: config.postgres.timescale,
  });
  const objectStore = createObjectStore(config.objectStore);
  const service = new IntelligenceService({ storage: opened.storage, objectStore, trainIn: "inline" });
  try {
    if (values.list) {
      const models = await service.models();
      process.stdout.write(values.json ? `${JSON.stringify(models, null, 2)}\n` : describeModels(models));
      return 0;
    }
    if (values.rollback) {
      const version = await service.rollback();
      process.stdout.write(
        version ? `model ${version} is in service again\n` : "no earlier model to go back to\n",
      );
      return version ? 0 : 1;
    }
    if (values.recalibrate) {
      const r = await service.recalibrate("cli");
      const counts = Object.entries(r.newJobs).map(([name, n]) => `${name} ${n}`);
      process.stdout.write(
        values.json
          ? `${JSON.stringify(r, null, 2)}\n`
          : r.recalibrated
            ? `model ${r.version} is in service: ${r.from} recalibrated on the jobs ended since (${counts.join(", ")})\n`
            : `nothing recalibrated: ${r.reason}\n`,
      );
      return r.recalibrated ? 0 : 1;
    }
    const report = await service.train({
      trigger: "cli",
      onProgress: (phase, done) => {
        if (process.stderr.isTTY)
          process.stderr.write(`\rtraining: ${phase} ${(done * 100).toFixed(0)}%\x1b[K`);
      },
    });
    if (process.stderr.isTTY) process.stderr.write("\n");
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : describeReport(report));
    return report.trained ? 0 : 1;
  } finally {
    await service.stop();
    await objectStore.close();
    await opened.close();
  }
}
