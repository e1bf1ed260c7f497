// `jobsight-collector run` with the spool's injectable full disk, for machines where the test
// cannot mount a tmpfs: the same configuration parsing and wiring as the collector's CLI
// (`startCollector`), with every spool opened on a `FullDisk` that is full while the flag file
// named by JOBSIGHT_FAULTS_DISK_FLAG exists. Run through tsx; argv as `jobsight-collector run`.
import { existsSync } from "node:fs";
// The collector is a package the server may not depend on; this test drives its source, as the
// SLURM end-to-end test does.
import { loadConfig } from "../../../../collector/src/config/load-config.js";
import { createLogger } from "../../../../collector/src/log/logger.js";
import { DiskSpool } from "../../../../collector/src/spool/disk-spool.js";
import { startCollector } from "../../../../collector/src/start-collector.js";
import { FullDisk } from "../../../../collector/src/test-support/full-disk.js";

const flag = process.env.JOBSIGHT_FAULTS_DISK_FLAG;
const disk = new FullDisk();
let full = false;
const watch = () => {
  const now = Boolean(flag && existsSync(flag));
  // Only on a change: room given back while full (a deleted file) stays usable, as on a real disk.
  if (now !== full) disk.spaceLeft = now ? 0 : Number.POSITIVE_INFINITY;
  full = now;
};
watch();
setInterval(watch, 50).unref();

const open = DiskSpool.open.bind(DiskSpool);
DiskSpool.open = (options) => open({ ...options, fs: disk.fs });

const config = loadConfig({ argv: process.argv.slice(2) });
const running = await startCollector({
  config,
  logger: createLogger({ level: config.log.level, base: { service: "jobsight-collector" } }),
});
process.once("SIGTERM", () => {
  void running.stop().then(() => process.exit(0));
});
