import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runBacktest, SERVER_ENTRY, stopBacktests } from "./run-backtest.mjs";

// A stand-in for packages/server/dist/main.js: the trace's name says what it does.
const FAKE_SERVER = `
const argv = process.argv.slice(2);
const trace = argv[1];
if (trace.endsWith("refused.swf")) {
  process.stderr.write("settings: conformal.missRate: must be a number\\n");
  process.exit(2);
} else if (trace.endsWith("truncated.swf")) {
  process.stdout.write('{"trace": "truncated.swf", "resources": {');
} else if (trace.endsWith("slow.swf")) {
  setTimeout(() => {}, 60_000);
} else if (trace.endsWith("large.swf")) {
  // Many pipe buffers, written whole (synchronously) just before exiting.
  require("node:fs").writeSync(1, JSON.stringify({ argv, padding: "x".repeat(4_000_000) }));
  process.exit(0);
} else {
  process.stdout.write(JSON.stringify({ argv }));
}
`;

let dir: string;
let server: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "run-backtest-test-"));
  server = join(dir, "fake-server.cjs");
  writeFileSync(server, FAKE_SERVER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A fresh, empty folder for the reports of one test. */
const reports = () => mkdtempSync(join(dir, "reports-"));

describe("runBacktest", () => {
  it("runs the server's backtest command and writes its stdout as the report", async () => {
    const out = join(reports(), "ok.json");
    const report = await runBacktest("traces/ok.swf", out, { server });
    expect(report).toEqual({ argv: ["backtest", "traces/ok.swf", "--json"] });
    expect(readFileSync(out, "utf8")).toBe(JSON.stringify(report));
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it("passes --settings only when a settings file is given", async () => {
    const folder = reports();
    const withSettings = await runBacktest("ok.swf", join(folder, "with.json"), {
      server,
      settings: "/tmp/looser.json",
    });
    expect(withSettings.argv).toEqual(["backtest", "ok.swf", "--json", "--settings", "/tmp/looser.json"]);
    const without = await runBacktest("ok.swf", join(folder, "without.json"), {
      server,
      settings: undefined,
    });
    expect(without.argv).not.toContain("--settings");
  });

  it("reads the whole of a large report", async () => {
    const out = join(reports(), "large.json");
    const report = await runBacktest("large.swf", out, { server });
    expect(report.padding).toHaveLength(4_000_000);
    expect(JSON.parse(readFileSync(out, "utf8")).padding).toHaveLength(4_000_000);
  });

  it("rejects with the exit code and writes nothing when the backtest fails", async () => {
    const folder = reports();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await expect(
      runBacktest("refused.swf", join(folder, "refused.json"), {
        server,
        settings: "bad.json",
        label: "backtest of refused.swf for candidate bad",
        showProgress: false,
      }),
    ).rejects.toThrow("backtest of refused.swf for candidate bad exited with 2");
    // A quiet backtest's stderr is shown when it fails.
    expect(stderr).toHaveBeenCalledWith("settings: conformal.missRate: must be a number\n");
    expect(readdirSync(folder)).toEqual([]);
  });

  it("names the trace by default in its errors", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await expect(
      runBacktest("refused.swf", join(reports(), "refused.json"), { server, showProgress: false }),
    ).rejects.toThrow("backtest of refused.swf exited with 2");
    expect(stderr).toHaveBeenCalled();
  });

  it("keeps a quiet backtest's stderr to itself when it succeeds", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await runBacktest("ok.swf", join(reports(), "ok.json"), { server, showProgress: false });
    expect(stderr).not.toHaveBeenCalled();
  });

  it("rejects and leaves neither the report nor a partial file when stdout is not JSON", async () => {
    const folder = reports();
    const out = join(folder, "truncated.json");
    await expect(runBacktest("truncated.swf", out, { server })).rejects.toThrow(
      /^backtest of truncated\.swf: /,
    );
    expect(readdirSync(folder)).toEqual([]);
  });

  it("leaves no partial file when the report cannot be written", async () => {
    const folder = reports();
    // The report's path is a folder that is not empty: the rename fails after the partial file is written.
    const out = join(folder, "taken");
    mkdirSync(join(out, "inside"), { recursive: true });
    await expect(runBacktest("ok.swf", out, { server })).rejects.toThrow(/^backtest of ok\.swf: /);
    expect(readdirSync(folder)).toEqual(["taken"]);
  });

  it("rejects when the server cannot be run", async () => {
    const folder = reports();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await expect(
      runBacktest("ok.swf", join(folder, "ok.json"), {
        server: join(dir, "missing.mjs"),
        showProgress: false,
      }),
    ).rejects.toThrow("backtest of ok.swf exited with 1");
    expect(String(stderr.mock.calls.at(-1)?.[0])).toContain("Cannot find module");
    expect(readdirSync(folder)).toEqual([]);
  });

  it("runs the built server by default", () => {
    expect(SERVER_ENTRY).toMatch(/packages[/\\]server[/\\]dist[/\\]main\.js$/);
  });
});

describe("stopBacktests", () => {
  it("ends the backtests still running, whose promises then reject", async () => {
    const folder = reports();
    const slow = [1, 2].map((i) => runBacktest("slow.swf", join(folder, `slow-${i}.json`), { server }));
    expect(stopBacktests()).toBe(2);
    await Promise.all(slow.map((p) => expect(p).rejects.toThrow("backtest of slow.swf exited with SIGTERM")));
    expect(readdirSync(folder)).toEqual([]);
    // Finished backtests are no longer counted.
    expect(stopBacktests()).toBe(0);
  });
});
