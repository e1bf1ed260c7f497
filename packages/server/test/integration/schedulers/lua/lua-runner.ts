import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Runs examples/slurm/*.lua under harness.lua with Debian's Lua 5.1, the way SLURM would call
// them, and collects what they did.

const EXAMPLES = fileURLToPath(new URL("../../../../../../examples/slurm/", import.meta.url));
const HARNESS = fileURLToPath(new URL("./harness.lua", import.meta.url));

/** Debian's Lua 5.1 and curl, installed if missing (the tests run as root), or why not. */
export function ensureTools(): { lua?: string; reason?: string } {
  const which = (cmd: string) => {
    try {
      return execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const missing = ["lua5.1", "curl"].filter((c) => !which(c));
  if (missing.length > 0) {
    try {
      execFileSync("apt-get", ["install", "-y", "--no-install-recommends", ...missing], {
        stdio: "ignore",
        timeout: 120_000,
      });
    } catch (error) {
      return { reason: `cannot install ${missing.join(", ")}: ${(error as Error).message}` };
    }
  }
  const lua = which("lua5.1");
  return lua && which("curl") ? { lua } : { reason: "lua5.1 or curl still missing after apt-get install" };
}

/** Lua 5.1 and curl, installed if needed, or the reason they are missing. */
export const tools = ensureTools();

export type LuaValue = string | number | boolean | LuaValue[] | { [key: string]: LuaValue };

/** A Lua 5.1 literal for a test value (strings are ASCII here, which JSON escapes validly for Lua). */
function lua(value: LuaValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `{ ${value.map(lua).join(", ")} }`;
  return `{ ${Object.entries(value)
    .map(([k, v]) => `[${JSON.stringify(k)}] = ${lua(v)}`)
    .join(", ")} }`;
}

/** What one run of a plugin did. */
export type Run = {
  rc?: string;
  sets: Record<string, string>;
  user: string[];
  info: string[];
  other: string[];
  elapsedMs: number;
};

const workDir = mkdtempSync(join(tmpdir(), "jobsight-lua-"));
let inputs = 0;

/** Delete the inputs written so far. */
export function removeInputs(): void {
  rmSync(workDir, { recursive: true, force: true });
}

/** Run a plugin on an input table with the given environment. */
export function runPlugin(
  mode: "cli_filter" | "job_submit",
  input: Record<string, LuaValue>,
  env: Record<string, string>,
): Promise<Run> {
  const file = join(workDir, `input-${++inputs}.lua`);
  writeFileSync(file, `return ${lua(input)}\n`);
  const script = join(EXAMPLES, `${mode}.lua`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      tools.lua!,
      [HARNESS, mode, script, file],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          JOBSIGHT_CONFIG: join(workDir, "none.conf"),
          ...env,
        },
        timeout: 15_000,
      },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        const run: Run = { sets: {}, user: [], info: [], other: [], elapsedMs: performance.now() - started };
        for (const line of stdout.split("\n").filter(Boolean)) {
          const [kind, ...rest] = line.split("\t");
          if (kind === "rc") run.rc = rest[0];
          else if (kind === "set") run.sets[rest[0]] = rest[1];
          else if (kind === "user") run.user.push(rest[0]);
          else if (kind === "info") run.info.push(rest[0]);
          else run.other.push(line);
        }
        resolve(run);
      },
    );
  });
}
