import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { runCli } from "../run-cli.js";
import { resolveServerBin } from "./delegate.js";

// A stand-in @jobsight/server in a project's node_modules: its bin records how it was run.
function installServer(dir: string, withBin = true) {
  const pkg = join(dir, "node_modules", "@jobsight", "server");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "site", private: true }));
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "@jobsight/server",
      type: "module",
      bin: { "jobsight-server": "./dist/main.js" },
      exports: { "./package.json": "./package.json" },
    }),
  );
  if (withBin) {
    writeFileSync(
      join(pkg, "dist", "main.js"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(process.env.RECORD, JSON.stringify({ args: process.argv.slice(2), url: process.env.JOBSIGHT_URL, token: process.env.JOBSIGHT_TOKEN, cwd: process.cwd() }));\nprocess.exit(7);\n`,
    );
    chmodSync(join(pkg, "dist", "main.js"), 0o755);
  }
  return pkg;
}

describe("commands run by the server package", () => {
  it("says to build it when its bin is missing", () => {
    const { dir } = captureIo();
    installServer(dir, false);
    expect(resolveServerBin(dir)).toEqual({ missing: expect.stringContaining("does not exist; build it") });
  });

  it.each([
    [
      ["import", "trace.swf", "--format", "swf"],
      ["import", "trace.swf", "--format", "swf"],
    ],
    [
      ["backtest", "LANL.swf.gz", "--window", "0.3", "--json"],
      ["backtest", "LANL.swf.gz", "--window", "0.3", "--json"],
    ],
    // The bin has no `server` command: `jobsight server` is its `serve`.
    [
      ["server", "--port", "0"],
      ["serve", "--port", "0"],
    ],
  ])("runs jobsight-server with the same arguments: %j", async (args, expected) => {
    const { io, dir } = captureIo();
    installServer(dir);
    const record = join(dir, "record.json");
    io.env = { RECORD: record, JOBSIGHT_TOKEN: "from-env" };
    expect(await runCli([...args, "--url", "http://127.0.0.1:9"], io)).toBe(7);
    const seen = JSON.parse(readFileSync(record, "utf8"));
    expect(seen).toEqual({ args: expected, url: "http://127.0.0.1:9", token: "from-env", cwd: dir });
  });
});
