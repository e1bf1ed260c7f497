import { Readable } from "node:stream";
import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { sacctItems } from "./import-sacct.js";
import { readSacctParsable } from "./sacct-parsable-parser.js";

// `sacct -a -P -o JobID,JobName,User,Account,Partition,State,ExitCode,Submit,Start,End,ElapsedRaw,
// TimelimitRaw,ReqMem,ReqCPUS,AllocCPUS,ReqTRES,AllocTRES,NNodes,NodeList,MaxRSS,TotalCPU,Cluster`
// for the jobs of /work/shared/slurm/sacct-all-states.json, in sacct's --parsable2 format: a
// header, then each job followed by its steps, '|' between fields, no trailing '|'.
const EXPORT = `JobID|JobName|User|Account|Partition|State|ExitCode|Submit|Start|End|ElapsedRaw|TimelimitRaw|ReqMem|ReqCPUS|AllocCPUS|ReqTRES|AllocTRES|NNodes|NodeList|MaxRSS|TotalCPU|Cluster
4|ok|root|root|debug|COMPLETED|0:0|2026-12-02T15:37:50|2026-12-02T15:37:53|2026-12-02T15:37:58|5|2|50M|1|1|billing=1,cpu=1,mem=50M,node=1|billing=1,cpu=1,mem=50M,node=1|1|vm||00:00.010|testcluster
4.batch|batch||||COMPLETED|0:0|2026-12-02T15:37:53|2026-12-02T15:37:53|2026-12-02T15:37:58|5||||1||cpu=1,mem=50M,node=1|1|vm|4832K|00:00.010|testcluster
5|fail|root|root|debug|FAILED|1:0|2026-12-02T15:37:50|2026-12-02T15:37:53|2026-12-02T15:37:53|0|2|50M|1|1|billing=1,cpu=1,mem=50M,node=1|billing=1,cpu=1,mem=50M,node=1|1|vm||00:00:00|testcluster
5.batch|batch||||FAILED|1:0|2026-12-02T15:37:53|2026-12-02T15:37:53|2026-12-02T15:37:53|0||||1||cpu=1,mem=50M,node=1|1|vm||00:00:00|testcluster
7|oom|root|root|debug|FAILED|0:9|2026-12-02T15:37:50|2026-12-02T15:37:59|2026-12-02T15:38:00|1|3|100M|1|1|billing=1,cpu=1,mem=100M,node=1|billing=1,cpu=1,mem=100M,node=1|1|vm||00:00.470|testcluster
7.batch|batch||||CANCELLED|0:9|2026-12-02T15:37:59|2026-12-02T15:37:59|2026-12-02T15:38:00|1||||1||cpu=1,mem=100M,node=1|1|vm|112504K|00:00.470|testcluster
9|exit3|root|root|debug|FAILED|3:0|2026-12-02T15:37:50|2026-12-02T15:38:52|2026-12-02T15:38:52|0|UNLIMITED|100M|1|1|billing=1,cpu=1,mem=100M,node=1|billing=1,cpu=1,mem=100M,node=1|1|vm||00:00:00|testcluster
9.extern|extern||||COMPLETED|0:0|2026-12-02T15:38:52|2026-12-02T15:38:52|2026-12-02T15:38:52|0||||1||cpu=1,mem=100M,node=1|1|vm|0|00:00:00|testcluster
10|cancelme|root|root|debug|CANCELLED by 0|0:0|2026-12-02T15:37:50|Unknown|2026-12-02T15:37:58|0|5|10M|1|1|billing=1,cpu=1,mem=10M,node=1||1|None assigned||00:00:00|testcluster
99.batch|batch||||COMPLETED|0:0|2026-12-02T15:37:53|2026-12-02T15:37:53|2026-12-02T15:37:58|5||||1||cpu=1|1|vm|4832K|00:00.010|testcluster
13|broken|root|root|debug|COMPLETED
`;

async function items(text: string, timeZone?: string) {
  const out = [];
  for await (const item of sacctItems(Readable.from([text]), "parsable", { timeZone })) out.push(item);
  return out;
}

describe("sacct --parsable2", () => {
  it("gathers steps into their job and trusts the exit codes", async () => {
    const all = await items(EXPORT);
    const records = all.flatMap((i) => ("record" in i ? [i.record] : []));
    expect(records.map((r) => r.jobId)).toEqual(["4", "5", "7", "9", "10"]);
    for (const r of records) expect(validators.JobRecord.check(r)).toBe(true);
    const byId = new Map(records.map((r) => [r.jobId, r]));
    expect(byId.get("4")?.outcome).toEqual({ state: "COMPLETED", exitCode: 0 });
    expect(byId.get("5")?.outcome).toEqual({ state: "FAILED", exitCode: 1 });
    expect(byId.get("9")?.outcome).toEqual({ state: "FAILED", exitCode: 3 });
    expect(byId.get("7")?.outcome).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
    expect(byId.get("10")?.outcome).toEqual({ state: "CANCELLED", exitCode: 0 });
    expect(byId.get("4")?.steps).toEqual([
      { stepId: "batch", state: "COMPLETED", exitCode: 0, maxRssBytes: 4832 * 1024, elapsedSeconds: 5 },
    ]);
  });

  it("converts times, limits and requests", async () => {
    const [first] = await items(EXPORT);
    expect("record" in first && first.record).toMatchObject({
      cluster: "testcluster",
      submittedAt: "2026-12-02T15:37:50Z",
      startedAt: "2026-12-02T15:37:53Z",
      endedAt: "2026-12-02T15:37:58Z",
      spec: {
        user: "root",
        jobName: "ok",
        requested: { memoryBytes: 50 * 2 ** 20, cores: 1, nodes: 1, walltimeSeconds: 120 },
      },
      peaks: { memoryBytes: 4832 * 1024, runTimeSeconds: 5 },
    });
    const [paris] = await items(EXPORT, "Europe/Paris");
    expect("record" in paris && paris.record.submittedAt).toBe("2026-12-02T14:37:50Z");
  });

  it("reports orphan steps and short lines with their line numbers", async () => {
    const errors = (await items(EXPORT)).filter((i) => "error" in i);
    expect(errors).toEqual([
      { line: 11, error: "step 99.batch without its job line" },
      { line: 12, error: "expected 22 fields, found 6" },
    ]);
  });

  it("needs a header naming JobID and State", async () => {
    const out = [];
    for await (const item of readSacctParsable(Readable.from(["4|ok|root\n"]))) out.push(item);
    expect(out).toEqual([
      { line: 1, error: "The first line must be a header naming at least JobID and State" },
    ]);
  });
});
