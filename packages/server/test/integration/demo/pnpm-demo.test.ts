// `pnpm demo` as the README runs it: the root package.json's own script line, started by pnpm (which
// forwards Ctrl-C and prints its own errors), with the README's picture taken from the running demo.
// The line's `pnpm build` half is left out: CI runs that very build before the tests, and a second
// one here would take minutes and empty every package's dist/ (tsup cleans it) under the test files
// running beside this one. The other half runs unchanged, from a folder whose package.json holds it.
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumForTests } from "../../../../../test/browser/index.js";
import { pngSize } from "../web/page-probes.js";
import { type JobPageShot, shootJobPage } from "./demo-job-page.js";
import { DEMO, type DemoRun, demoProcesses, eventually, ROOT, runDemo } from "./demo-run.js";

const rootScripts: Record<string, string> = JSON.parse(
  readFileSync(join(ROOT, "package.json"), "utf8"),
).scripts;
const [build, launch] = rootScripts.demo.split(" && ");
// Kept for the README; rewritten with UPDATE_SCREENSHOTS=1.
const SCREENSHOT = join(ROOT, "docs", "report-job-page.png");
const executablePath = await chromiumForTests();

describe.skipIf(!existsSync(DEMO))("pnpm demo, the script line the README runs", () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const dataDir = tempDir("jobsight-pnpm-demo-");
  let run: DemoRun;
  let shot: JobPageShot | undefined;
  let shotError: unknown;

  beforeAll(async () => {
    // The embedded PostgreSQL runs as an unprivileged user when the tests run as root.
    chmodSync(dataDir, 0o755);
    const project = tempDir("jobsight-pnpm-demo-project-");
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "jobsight-demo-launch", private: true, scripts: { demo: launch } }),
    );
    // The line names the demo relative to the repository root, where pnpm runs it.
    symlinkSync(join(ROOT, "packages"), join(project, "packages"));
    run = await runDemo(dataDir, [], {
      command: { file: "pnpm", args: ["demo"], cwd: project },
      interruptWhen: /Server running; press Ctrl-C to stop\./,
      interrupt: (pid, output) => {
        const url = output.match(/http:\/\/\S+\/report\/jobs\.html\?id=900103&\S+/)?.[0];
        const look = url && executablePath ? shootJobPage(executablePath, url) : Promise.resolve(undefined);
        // Ctrl-C from a terminal reaches pnpm, the shell's `exec`ed demo and all they started.
        void look
          .then(
            (s) => (shot = s),
            (error) => (shotError = error),
          )
          .finally(() => process.kill(-pid, "SIGINT"));
      },
    });
  }, 200_000);

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is the build CI runs before the tests, then the built demo in place of the shell", () => {
    expect(build).toBe("pnpm build");
    expect(rootScripts.build).toBeDefined();
    expect(launch).toBe("exec node packages/server/dist/demo/main.js");
    expect(join(ROOT, launch.split(" ").at(-1)!)).toBe(DEMO);
  });

  it("passes pnpm's arguments on, runs every step and stops on Ctrl-C without pnpm's error noise", async () => {
    const { output } = run;
    expect({ code: run.code, signal: run.signal }, output).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/\[7\] history imported .*: 3000 jobs imported, 0 already there/);
    expect(output).toMatch(/\[11\] diagnoses of the three problem jobs/);
    expect(output).toMatch(/Stopping \(Ctrl-C\)…\nStopped\.\n$/);
    expect(output).not.toMatch(/ELIFECYCLE|ERR_PNPM|Command failed|failed|Error/);
    expect(existsSync(join(dataDir, "postgres", "data", "postmaster.pid")), output).toBe(false);
    const left = await eventually(
      () => demoProcesses(run.pid, dataDir),
      (p) => p.length === 0,
      3_000,
    );
    expect(left, output).toEqual([]);
  });

  it.skipIf(!executablePath)("serves the job page the README shows, without errors", async () => {
    expect(shotError).toBeUndefined();
    expect(shot, run.output).toBeDefined();
    const { png, errors, findings } = shot!;
    expect(errors, "console errors").toEqual([]);
    expect(findings.join("\n")).toMatch(/2 of the 2 GPUs the job reserved did no work/);
    const size = pngSize(png);
    expect(size.width).toBe(1280);
    if (process.env.UPDATE_SCREENSHOTS === "1") {
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await writeFile(SCREENSHOT, png);
    } else {
      // Fonts differ between machines: the same width, and a height within a quarter of the kept one.
      const kept = pngSize(await readFile(SCREENSHOT));
      expect(size.width).toBe(kept.width);
      expect(Math.abs(size.height - kept.height) / kept.height).toBeLessThan(0.25);
    }
  });
});
