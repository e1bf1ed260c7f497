import { slurmClient } from "../../../../test/slurm/index.js";

/** The `sacct -P` fields a site exports for `jobsight import --format sacct`. */
export const SACCT_PARSABLE_FIELDS = [
  "JobID",
  "JobName",
  "User",
  "Account",
  "Partition",
  "QOS",
  "State",
  "ExitCode",
  "Submit",
  "Start",
  "End",
  "Elapsed",
  "ElapsedRaw",
  "Timelimit",
  "TimelimitRaw",
  "ReqMem",
  "ReqCPUS",
  "AllocCPUS",
  "ReqTRES",
  "AllocTRES",
  "NNodes",
  "NodeList",
  "MaxRSS",
  "TotalCPU",
  "Cluster",
];

/**
 * `sacct --parsable2 -a` with a header and {@link SACCT_PARSABLE_FIELDS}, from the cluster's
 * accounting database: the given jobs (`-j`), or every job since the epoch.
 *
 * @example
 * const text = await sacctParsableExport(["12", "13"]);
 */
export function sacctParsableExport(ids?: readonly string[]): Promise<string> {
  return slurmClient().run("sacct", [
    "--parsable2",
    "-a",
    `--format=${SACCT_PARSABLE_FIELDS.join(",")}`,
    ...(ids ? ["-j", ids.join(",")] : ["--starttime=1970-01-02T00:00:00"]),
  ]);
}
