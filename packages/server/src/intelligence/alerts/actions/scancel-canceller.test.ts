import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScancelCanceller } from "./scancel-canceller.js";

// The real SLURM scancel is tested on the cluster (test/slurm); here a script stands in for the
// command's exit statuses, as a wrapper (ssh slurm-ctl scancel) would return them.
describe("ScancelCanceller", () => {
  let dir: string;
  let script: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-scancel-"));
    script = join(dir, "fake-scancel.sh");
    await writeFile(
      script,
      [
        "#!/bin/sh",
        `echo "$@" >> "${join(dir, "calls")}"`,
        "for id; do :; done",
        // As SLURM 22.05's scancel answers an id it does not know: exit 0, the error only with --verbose.
        '[ "$id" = "999" ] && { echo "scancel: Terminating job 999"; echo "scancel: error: Kill job error on job id 999: Invalid job id specified" >&2; exit 0; }',
        '[ "$id" = "998" ] && { echo "scancel: error: Invalid job id 998" >&2; exit 1; }',
        '[ "$id" = "777" ] && sleep 5',
        'echo "scancel: Terminating job $id"',
        "exit 0",
        "",
      ].join("\n"),
    );
    await chmod(script, 0o755);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs the configured command with --verbose and the job id appended, without a shell", async () => {
    const scancel = new ScancelCanceller({ command: [script, "--quiet"] });
    expect(await scancel.cancel("4242_7")).toEqual({
      ok: true,
      detail: `${script} --quiet --verbose 4242_7: exit 0: scancel: Terminating job 4242_7`,
    });
    expect(await readFile(join(dir, "calls"), "utf8")).toBe("--quiet --verbose 4242_7\n");
  });

  it("reports a refusal (an error line despite exit 0, or a failed exit) and a command past its deadline", async () => {
    const scancel = new ScancelCanceller({ command: [script], timeoutMs: 300 });
    expect(await scancel.cancel("999")).toEqual({
      ok: false,
      detail: `${script} --verbose 999: exit 0: scancel: error: Kill job error on job id 999: Invalid job id specified\nscancel: Terminating job 999`,
    });
    expect(await scancel.cancel("998")).toEqual({
      ok: false,
      detail: `${script} --verbose 998: exit 1: scancel: error: Invalid job id 998`,
    });
    expect(await scancel.cancel("777")).toEqual({
      ok: false,
      detail: `${script} --verbose 777: timed out after 300 ms`,
    });
    expect((await new ScancelCanceller({ command: [join(dir, "missing")] }).cancel("1")).detail).toMatch(
      /ENOENT/,
    );
  });

  it("refuses what is not a SLURM job id, so no option can be smuggled in", async () => {
    const scancel = new ScancelCanceller({ command: [script] });
    expect(await scancel.cancel("--user=alice")).toEqual({
      ok: false,
      detail: "not a SLURM job id: --user=alice",
    });
    expect((await scancel.cancel("ml/train")).ok).toBe(false);
  });
});
