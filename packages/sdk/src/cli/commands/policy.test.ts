import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRecord, Policy, PolicyAuditRecord, Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../../client.js";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const GiB = 2 ** 30;
const spec = {
  cluster: "hpc1",
  scheduler: "slurm" as const,
  user: "alice",
  executable: "python train.py",
  requested: { memoryBytes: 64 * GiB, cores: 8, walltimeSeconds: 4 * 3600 },
};

// Alice's history, from which the fake recommends 1.2 × the largest use of each resource.
function endedJob(i: number): JobRecord {
  const at = new Date(Date.UTC(2026, 10, 1, i)).toISOString();
  return {
    cluster: "hpc1",
    jobId: String(1000 + i),
    phase: "ended",
    source: "sacct-import",
    spec,
    submittedAt: at,
    endedAt: at,
    outcome: { state: "COMPLETED", exitCode: 0 },
    peaks: { memoryBytes: (10 + i) * GiB, coresUsed: 5.5, runTimeSeconds: 1800 },
  };
}

function auditRecord(hour: number, overrides: Partial<PolicyAuditRecord> = {}): PolicyAuditRecord {
  return {
    recordedAt: new Date(Date.UTC(2026, 11, 1, hour)).toISOString(),
    cluster: "hpc1",
    actor: "slurm-cli-filter",
    user: "alice",
    job: `job-${hour}`,
    resource: "memory",
    before: 16 * GiB,
    after: 8 * GiB,
    modelVersion: "m-3",
    policy: "default",
    limitedBy: "max_decrease",
    adjustments: [],
    mode: "live",
    ...overrides,
  };
}

const gentle: Policy = {
  name: "gentle",
  floors: { memory: GiB, walltime: 1800 },
  caps: { memory: 512 * GiB },
  maxDecrease: { memory: 0.5 },
  leaveAlone: ["gpus"],
  minConfidence: 0.9,
};

function setup(tokens?: Record<string, Role[]>) {
  const fake = createFakeServer({ tokens });
  const cap = captureIo({ fetch: fake.fetch, env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_RETRIES: "0" } });
  const write = (name: string, value: unknown) =>
    writeFileSync(join(cap.dir, name), typeof value === "string" ? value : JSON.stringify(value));
  write("gentle.json", gentle);
  return { fake, write, ...cap };
}

describe("jobsight policy show", () => {
  it("prints the policy in force, one row per rule, in GiB and hours", async () => {
    const { io, fake, stdout } = setup();
    fake.store.policy = gentle;
    expect(await runCli(["policy", "show"], io)).toBe(0);
    const out = stdout();
    expect(out).toContain("policy gentle\n");
    expect(out).toMatch(/floors\s+memory 1 GiB, walltime 0\.5 h\n/);
    expect(out).toMatch(/caps\s+memory 512 GiB\n/);
    expect(out).toMatch(/maxDecrease\s+memory -50%\n/);
    expect(out).toMatch(/leaveAlone\s+gpus\n/);
    expect(out).toMatch(/minConfidence\s+90%\n/);
  });

  it("prints the Policy document with --json", async () => {
    const { io, fake, stdout } = setup();
    fake.store.policy = gentle;
    expect(await runCli(["policy", "show", "--json"], io)).toBe(0);
    expect(JSON.parse(stdout())).toEqual(gentle);
  });
});

describe("jobsight policy validate", () => {
  it("exits 0 for a valid file without asking any server", async () => {
    const { io, stdout } = captureIo();
    writeFileSync(join(io.cwd, "p.json"), JSON.stringify(gentle));
    expect(await runCli(["policy", "validate", "p.json"], io)).toBe(0);
    expect(stdout()).toBe("p.json: valid policy gentle\n");
  });

  it("exits 2 naming every field the schema refuses", async () => {
    const { io, write, stderr } = setup();
    write("bad.json", { maxDecrease: { memory: 1.5 }, leaveAlone: ["disk"], colour: "red" });
    expect(await runCli(["policy", "validate", "bad.json"], io)).toBe(2);
    const err = stderr();
    expect(err).toContain("bad.json: not a valid policy");
    expect(err).toContain("\n  /maxDecrease/memory: Expected number to be less or equal to 1");
    expect(err).toContain("\n  /leaveAlone/0: Expected union value");
    expect(err).toContain("\n  /name: Expected required property");
    expect(err).toContain("\n  /colour: Unexpected property");
  });

  it("exits 2 when a floor is above a cap of the same resource, globally or in a partition", async () => {
    const { io, write, stderr } = setup();
    write("crossed.json", {
      name: "crossed",
      floors: { memory: 64 * GiB, cores: 2 },
      caps: { memory: 32 * GiB, cores: 4 },
      partitions: [{ partition: "gpu", floors: { walltime: 7200 }, caps: { walltime: 3600 } }],
    });
    expect(await runCli(["policy", "validate", "crossed.json"], io)).toBe(2);
    const err = stderr();
    expect(err).toContain("(2 problems)");
    expect(err).toContain("/floors/memory: floor 64 GiB is above the cap 32 GiB (/caps/memory)");
    expect(err).toContain("/partitions/0/floors/walltime: floor 2 h is above the cap 1 h");
    expect(err).not.toContain("/floors/cores");
  });

  it("exits 2 for the other rules the server refuses together: left alone and never lowered, a partition twice", async () => {
    const { io, write, stderr } = setup();
    const twice = [{ partition: "gpu" }, { partition: "gpu" }];
    write("odd.json", { name: "odd", leaveAlone: ["gpus"], neverLower: ["gpus"], partitions: twice });
    expect(await runCli(["policy", "validate", "odd.json"], io)).toBe(2);
    expect(stderr()).toContain("/neverLower: gpus is also in leaveAlone");
    expect(stderr()).toContain("/partitions/1/partition: partition gpu is listed twice");
  });

  it("exits 2 for a missing file, a file that is not JSON, or no file", async () => {
    const { io, write, stderr } = setup();
    expect(await runCli(["policy", "validate", "missing.json"], io)).toBe(2);
    expect(stderr()).toContain("missing.json: ENOENT");
    write("text.json", "name: yaml");
    expect(await runCli(["policy", "validate", "text.json"], io)).toBe(2);
    expect(stderr()).toContain("text.json: not JSON");
    expect(await runCli(["policy", "validate"], io)).toBe(2);
    expect(stderr()).toContain("needs exactly one policy file");
  });
});

describe("jobsight policy simulate", () => {
  async function withPrediction() {
    const ctx = setup();
    for (let i = 0; i < 12; i++) ctx.fake.store.putJob(endedJob(i));
    const client = createClient({ baseUrl: ctx.fake.baseUrl, fetch: ctx.fake.fetch });
    await client.predictions.create({ spec });
    return ctx;
  }

  it("prints per resource the counts, limiting rules and requested → applied totals", async () => {
    const { io, fake, stdout } = await withPrediction();
    expect(await runCli(["policy", "simulate", "gentle.json"], io)).toBe(0);
    const out = stdout();
    expect(out).toMatch(/^policy gentle {2}1 recorded prediction · /);
    // The fake recommends 1.2 × the largest use: 21 GiB → 25.2 GiB, 5.5 cores → 7, 0.5 h → 0.6 h.
    expect(out).toMatch(/memory\s+1\s+1\s+0\s+1\s+0\s+—\s+—\s+64 GiB → 25\.2 GiB \(-61%\)\n/);
    expect(out).toMatch(/cores\s+1\s+1\s+0\s+1\s+0\s+—\s+—\s+8 → 7 \(-13%\)\n/);
    expect(out).toMatch(/walltime\s+1\s+1\s+0\s+1\s+0\s+—\s+—\s+4 h → 0\.6 h \(-85%\)\n/);
    expect(out).toMatch(/gpus\s+1\s+0\s+0\s+0\s+0\s+insufficient_evidence 1\s+—\s+—\n/);
    expect(fake.requests.find((r) => r.operationId === "simulatePolicy")?.body).toEqual({ policy: gentle });
  });

  it("counts held recommendations by reason, and prints the PolicySimulation with --json", async () => {
    const { io, write, stdout } = await withPrediction();
    write("hands-off.json", { name: "hands-off", leaveAlone: ["memory"] });
    expect(await runCli(["policy", "simulate", "hands-off.json", "--json"], io)).toBe(0);
    const sim = JSON.parse(stdout());
    expect(sim).toMatchObject({ policy: "hands-off", jobs: 1 });
    expect(sim.resources.find((r: { resource: string }) => r.resource === "memory")).toMatchObject({
      changed: 0,
      held: { leave_alone: 1 },
      requestedTotal: 64 * GiB,
      appliedTotal: 64 * GiB,
    });
  });

  it("sends --cluster and the period as ISO timestamps, and says when nothing was recorded", async () => {
    const { io, fake, stdout, stderr } = setup();
    const args = ["policy", "simulate", "gentle.json", "--cluster", "hpc2", "--from", "2026-11-01"];
    expect(await runCli([...args, "--to", "2026-11-08T00:00:00Z"], io)).toBe(0);
    expect(stdout()).toContain("0 recorded predictions on hpc2");
    expect(stdout()).toContain("no recorded predictions in this period");
    expect(fake.requests.at(-1)?.body).toMatchObject({
      cluster: "hpc2",
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-08T00:00:00.000Z",
    });
    expect(await runCli([...args, "--to", "2026-10-01"], io)).toBe(2);
    expect(stderr()).toContain("must be before --to");
    expect(await runCli(["policy", "simulate", "gentle.json", "--from", "last week"], io)).toBe(2);
    expect(stderr()).toContain("--from must be an ISO 8601 time");
  });

  it("refuses an invalid policy before asking the server", async () => {
    const { io, fake, write } = setup();
    write("crossed.json", { name: "x", floors: { gpus: 4 }, caps: { gpus: 2 } });
    expect(await runCli(["policy", "simulate", "crossed.json"], io)).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("jobsight policy set", () => {
  it("checks the file, stores it and prints the stored name", async () => {
    const { io, fake, stdout } = setup();
    expect(await runCli(["policy", "set", "gentle.json"], io)).toBe(0);
    expect(stdout()).toBe("stored policy gentle\n");
    expect(fake.store.policy).toEqual(gentle);
  });

  it("keeps the policy in force when the file is invalid", async () => {
    const { io, fake, write, stderr } = setup();
    write("crossed.json", { name: "x", floors: { memory: 8 * GiB }, caps: { memory: 4 * GiB } });
    expect(await runCli(["policy", "set", "crossed.json"], io)).toBe(2);
    expect(stderr()).toContain("/floors/memory: floor 8 GiB is above the cap 4 GiB");
    expect(fake.requests).toHaveLength(0);
    expect(fake.store.policy).toEqual({ name: "default" });
  });

  it("exits 2 when the token may not change the policy, 3 when the server fails", async () => {
    const { io, fake, stderr } = setup({ sched: ["scheduler"] });
    io.env.JOBSIGHT_TOKEN = "sched";
    expect(await runCli(["policy", "set", "gentle.json"], io)).toBe(2);
    expect(stderr()).toContain("HTTP 403");
    expect(stderr()).toContain("[PERMISSION_DENIED]");
    expect(fake.store.policy).toEqual({ name: "default" });
    expect(await runCli(["policy", "show"], io)).toBe(0);
    fake.failNext({ status: 503 });
    expect(await runCli(["policy", "show"], io)).toBe(3);
  });
});

describe("jobsight policy audit", () => {
  it("renders the recorded changes newest first, before → after in human units", async () => {
    const { io, fake, stdout } = setup();
    fake.store.policyAudit.push(
      auditRecord(3),
      auditRecord(9, { resource: "walltime", before: 14_400, after: 5400, limitedBy: null, mode: "shadow" }),
      auditRecord(6, { cluster: "hpc2", user: "bob", before: null, after: 2 * GiB }),
    );
    expect(await runCli(["policy", "audit"], io)).toBe(0);
    const lines = stdout().trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^time\s+cluster\s+user\s+job\s+resource\s+before → after\s+limited by\s+mode\s+model$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[3])).toEqual(["job-9", "job-6", "job-3"]);
    expect(lines[1]).toMatch(
      /^2026-12-01 09:00:00Z\s+hpc1\s+alice\s+job-9\s+walltime\s+4 h → 1\.5 h\s+—\s+shadow\s+m-3$/,
    );
    expect(lines[2]).toMatch(/hpc2\s+bob\s+job-6\s+memory\s+— → 2 GiB\s+max_decrease\s+live/);
    expect(lines[3]).toMatch(/memory\s+16 GiB → 8 GiB\s+max_decrease/);
  });

  it("filters by --cluster and --user, stops at --limit, and prints records with --json", async () => {
    const { io, fake, stdout } = setup();
    for (let h = 0; h < 5; h++) fake.store.policyAudit.push(auditRecord(h));
    fake.store.policyAudit.push(auditRecord(10, { user: "bob" }));
    expect(
      await runCli(["policy", "audit", "--cluster", "hpc1", "--user", "alice", "--limit", "2", "--json"], io),
    ).toBe(0);
    expect(JSON.parse(stdout()).map((r: PolicyAuditRecord) => r.job)).toEqual(["job-4", "job-3"]);
    expect(fake.requests.at(-1)?.query).toMatchObject({ cluster: "hpc1", user: "alice", limit: "2" });
  });

  it("says when nothing was recorded, and exits 2 on a bad --limit", async () => {
    const { io, stdout, stderr } = setup();
    expect(await runCli(["policy", "audit"], io)).toBe(0);
    expect(stdout()).toBe("no changes recorded\n");
    expect(await runCli(["policy", "audit", "--limit", "0"], io)).toBe(2);
    expect(stderr()).toContain("--limit must be a positive whole number");
  });
});

describe("jobsight policy usage", () => {
  it.each(["policy --help", "help policy", "policy simulate -h", "policy validate --help"])(
    "prints the policy help for '%s'",
    async (line) => {
      const { io, stdout } = captureIo();
      expect(await runCli(line.split(" "), io)).toBe(0);
      expect(stdout()).toMatch(/^Usage: jobsight policy <command>/);
    },
  );

  it("exits 2 without a subcommand, on an unknown one, or without a server URL", async () => {
    const { io, stderr } = captureIo();
    writeFileSync(join(io.cwd, "p.json"), JSON.stringify(gentle));
    expect(await runCli(["policy"], io)).toBe(2);
    expect(await runCli(["policy", "apply"], io)).toBe(2);
    expect(stderr()).toContain("unknown policy command 'apply'");
    expect(await runCli(["policy", "set", "p.json"], io)).toBe(2);
    expect(stderr()).toContain("no Jobsight server URL");
  });
});
