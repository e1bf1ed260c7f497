import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "./atomic-file.js";

/** A batch handed to the backend but not yet acknowledged; resent with the same bounds after a restart. */
export type PendingBatch = { firstSeq: number; lastSeq: number };

/** What the spool keeps beside its segments. */
export type SpoolState = {
  /** Every record up to and including this sequence was acknowledged by the backend. */
  ackedSeq: number;
  pending: PendingBatch | null;
  /** Usage samples dropped to stay under the size cap, since the spool was created. */
  droppedSamples: number;
};

/** Read the state file; a missing file is a fresh spool, an unreadable one is reported. */
export async function readSpoolState(path: string): Promise<{ state: SpoolState; problem?: string }> {
  const fresh: SpoolState = { ackedSeq: 0, pending: null, droppedSamples: 0 };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: fresh };
    return { state: fresh, problem: `cannot read ${path}: ${(error as Error).message}` };
  }
  try {
    const s = JSON.parse(text) as Partial<SpoolState>;
    const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
    if (!ok(s.ackedSeq)) throw new Error("ackedSeq missing");
    const pending =
      s.pending && ok(s.pending.firstSeq) && ok(s.pending.lastSeq) && s.pending.firstSeq <= s.pending.lastSeq
        ? { firstSeq: s.pending.firstSeq, lastSeq: s.pending.lastSeq }
        : null;
    return {
      state: { ackedSeq: s.ackedSeq, pending, droppedSamples: ok(s.droppedSamples) ? s.droppedSamples : 0 },
    };
  } catch (error) {
    return { state: fresh, problem: `unreadable ${path}: ${(error as Error).message}` };
  }
}

/** Write the state file atomically and durably. */
export function writeSpoolState(path: string, state: SpoolState): Promise<void> {
  return writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}
