import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../../../../..");
export const DEMO = join(ROOT, "packages", "server", "dist", "demo", "main.js");

/** How a run of the demo ended and what it printed (stdout and stderr, interleaved). */
export type DemoRun = { code: number | null; signal: NodeJS.Signals | null; output: string; pid: number };

/** Options of {@link runDemo}. */
export type RunDemoOptions = {
  /** Once the output matches, `interrupt` is called with the demo's pid (the leader of its group). */
  interruptWhen?: RegExp;
  interrupt?: (pid: number, output: string) => void;
  /** What starts the demo, before its arguments; the built `main.js` on this Node by default. */
  command?: { file: string; args: string[]; cwd: string };
};

/**
 * Runs the built demo as `pnpm demo` does, in a process group of its own as a terminal would, on
 * the first 3000 jobs of the trace.
 */
export function runDemo(dataDir: string, args: string[], options: RunDemoOptions = {}): Promise<DemoRun> {
  const command = options.command ?? { file: process.execPath, args: [DEMO], cwd: ROOT };
  const child = spawn(
    command.file,
    [...command.args, "--history-lines", "3000", "--port", "0", "--data-dir", dataDir, ...args],
    {
      cwd: command.cwd,
      env: { ...process.env, JOBSIGHT_DEMO_EXIT: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const pid = child.pid!;
  let output = "";
  let interrupted = false;
  const read = (chunk: Buffer) => {
    output += chunk;
    if (!interrupted && options.interruptWhen?.test(output)) {
      interrupted = true;
      options.interrupt?.(pid, output);
    }
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  return new Promise((done) => child.on("close", (code, signal) => done({ code, signal, output, pid })));
}

/**
 * The report with what differs between two runs of the same data masked: durations, ports,
 * tokens, model versions, prediction ids, the timestamps of the jobs (they ran "just now"), how
 * the collector's records fell into batches, and the progress lines printed on a timer.
 */
export function comparableReport(output: string): string[] {
  const end = output.indexOf("Demo ready in");
  return output
    .slice(0, end === -1 ? undefined : end)
    .split("\n")
    .filter((line) => !/^\s+(importing|training): /.test(line))
    .map((line) =>
      line
        .replace(/ \(\d+\.\d s\)$/, "")
        .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
        .replace(/#token=jsp_[\w-]+/g, "#token=TOKEN")
        .replace(/\d{8}T\d{6}Z-[0-9a-f]{6}/g, "MODEL")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "UUID")
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
        .replace(/ in \d+ batches /, " in N batches "),
    );
}

/**
 * Processes still alive that belong to a demo: in its process group (the collector's nvidia-smi
 * and its guard), or naming its data folder (the embedded PostgreSQL runs in a group of its own).
 */
export function demoProcesses(pgid: number, dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z") continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      if (Number(pgrp) === pgid || cmdline.includes(dataDir)) found.push(`${pid} ${cmdline}`);
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Waits up to `ms` for `check` to hold; returns its last value. */
export async function eventually<T>(check: () => T, ok: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = check();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = check();
  }
  return value;
}
