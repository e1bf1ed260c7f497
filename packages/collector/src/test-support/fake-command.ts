import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Write a small executable shell script into a temporary folder, to stand in for a command that
 * cannot run here (nvidia-smi, squeue, sacct) and print its recorded output. Returns its path and
 * a cleanup function.
 *
 * @example
 * ```ts
 * const fake = fakeCommand("nvidia-smi", 'echo "0, GPU-1, 00000000:3B:00.0, 5, 10, 100, 50.00, 40"');
 * ```
 */
export function fakeCommand(name: string, body: string): { path: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-cmd-"));
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
