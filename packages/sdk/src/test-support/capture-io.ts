import type { CliIo } from "../cli/cli-io.js";
import { scratchDir } from "./scratch-dir.js";

/** A CliIo that records what the CLI prints, in a scratch working directory with no config file. */
export function captureIo(overrides: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const dir = scratchDir("jobsight-cli-");
  const io: CliIo = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: {},
    cwd: dir,
    home: dir,
    ...overrides,
  };
  return { io, dir, stdout: () => out.join(""), stderr: () => err.join("") };
}
