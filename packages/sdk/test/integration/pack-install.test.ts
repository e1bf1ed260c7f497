// Packs every publishable package as `pnpm pack` would publish it, installs the tarballs into a
// scratch project outside the workspace, then compiles and runs a small program against them: what
// would be published must work on its own, without the workspace's links.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const publishable = ["schemas", "otel-bridge", "collector", "sdk"];
const scratch = mkdtempSync(join(tmpdir(), "jobsight-pack-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const program = `
import { validateJobSpec, type JobSpec } from "@jobsight/schemas";
import { createClient, editSubmission, parseSbatch } from "@jobsight/sdk";
import { createFakeServer } from "@jobsight/sdk/testing";
import { observationsToResourceMetrics } from "@jobsight/otel-bridge";
import { loadConfig } from "@jobsight/collector";

const script = "#!/bin/bash\\n#SBATCH --mem=64G\\n#SBATCH --time=10:00:00\\npython train.py\\n";
const spec: JobSpec = parseSbatch(script, { cluster: "hpc1", user: "alice" }).spec;
const checked = validateJobSpec(spec);
if (!checked.ok) throw new Error(JSON.stringify(checked.errors));

const fake = createFakeServer();
const client = createClient({ baseUrl: "http://jobsight.test", token: "t", fetch: fake.fetch });
const health = await client.health();
const rm = observationsToResourceMetrics([
  { cluster: "hpc1", jobId: "1", node: "n1", time: "2026-12-01T10:00:00Z", memory: { currentBytes: 1024 } },
]);
console.log(JSON.stringify({
  memoryBytes: spec.requested.memoryBytes,
  walltimeSeconds: spec.requested.walltimeSeconds,
  health: health.status,
  resourceMetrics: rm.length,
  edit: typeof editSubmission,
  collectorConfig: typeof loadConfig,
}));
`;

describe("published packages work outside the workspace", () => {
  it("every publishable package passes publint", async () => {
    const { publint } = await import("publint");
    for (const name of publishable) {
      const { messages } = await publint({
        pkgDir: join(repo, "packages", name),
        level: "warning",
        pack: "pnpm",
      });
      expect({ name, messages }).toEqual({ name, messages: [] });
    }
  }, 120_000);

  it("packs, installs, compiles and runs a program against the tarballs", () => {
    const tarballs: string[] = [];
    for (const name of publishable) {
      const dir = join(repo, "packages", name);
      execFileSync("pnpm", ["pack", "--pack-destination", scratch], { cwd: dir, stdio: "pipe" });
    }
    for (const file of readdirSync(scratch)) if (file.endsWith(".tgz")) tarballs.push(join(scratch, file));
    expect(tarballs).toHaveLength(publishable.length);

    // Types resolve the way each consumer's module resolution sees them (ESM only: no CommonJS build).
    const attw = join(repo, "packages", "sdk", "node_modules", ".bin", "attw");
    for (const tarball of tarballs) {
      // The esm-only profile ignores CommonJS resolution; attw exits non-zero on any other problem.
      const report = spawnSync(attw, [tarball, "--profile", "esm-only", "--format", "table-flipped"], {
        encoding: "utf8",
      });
      expect({ tarball, status: report.status, output: report.status === 0 ? "" : report.stdout }).toEqual({
        tarball,
        status: 0,
        output: "",
      });
    }

    const project = join(scratch, "app");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "scratch-app", private: true, type: "module" }),
    );
    // Sibling tarballs must win over the registry for @jobsight/* dependencies.
    const overrides = Object.fromEntries(
      publishable.map((name) => [
        `@jobsight/${name}`,
        `file:${tarballs.find((t) => t.includes(`jobsight-${name}-`))}`,
      ]),
    );
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "scratch-app",
        private: true,
        type: "module",
        overrides,
        dependencies: overrides,
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
      cwd: project,
      stdio: "pipe",
      env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" },
      timeout: 240_000,
    });
    writeFileSync(join(project, "main.ts"), program);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: false,
          types: [],
          lib: ["ES2023", "DOM"],
          outDir: "out",
        },
        files: ["main.ts"],
      }),
    );
    // The workspace's TypeScript compiles the program against the installed packages' .d.ts files.
    execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {
      cwd: project,
      stdio: "pipe",
    });
    const out = execFileSync("node", ["out/main.js"], { cwd: project, encoding: "utf8" });
    const result = JSON.parse(out.trim().split("\n").pop()!);
    expect(result).toEqual({
      memoryBytes: 64 * 2 ** 30,
      walltimeSeconds: 36_000,
      health: "ok",
      resourceMetrics: 1,
      edit: "function",
      collectorConfig: "function",
    });
  }, 400_000);
});
