import { type StructuredPatchHunk, structuredPatch } from "diff";

// GNU diff and git write a one-line range as its start alone, and an empty range as starting at
// the line before it; jsdiff's own formatPatch always writes the count, so the ranges are ours.
function range(start: number, count: number): string {
  if (count === 1) return String(start);
  return `${count === 0 ? start - 1 : start},${count}`;
}

// jsdiff keeps a CRLF line's "\r" in its text and puts "\ No newline at end of file" after a last
// line without an end-of-line, so joining with "\n" gives each line back its own end-of-line.
function renderHunk(hunk: StructuredPatchHunk): string {
  const header = `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`;
  return `${header}\n${hunk.lines.join("\n")}\n`;
}

/** Options of {@link unifiedDiff}. */
export type UnifiedDiffOptions = {
  /** Name shown on the `---` line. @default "a" */
  fromName?: string;
  /** Name shown on the `+++` line. @default "b" */
  toName?: string;
  /** Unchanged lines shown around each change. @default 3 */
  context?: number;
};

/**
 * A unified diff (the format of `diff -u` and `git diff`, applicable with `patch`/`git apply`)
 * from one text to another; empty when they are equal. Each line keeps its own end-of-line.
 *
 * @example
 * ```ts
 * unifiedDiff("#SBATCH --mem=64G\n", "#SBATCH --mem=24G\n", { fromName: "a/job.sbatch", toName: "b/job.sbatch" });
 * ```
 */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions = {}): string {
  if (from === to) return "";
  const fromName = options.fromName ?? "a";
  const toName = options.toName ?? "b";
  // The diff (Myers) and the grouping into hunks are jsdiff's; GNU diff's default is 3 lines of
  // context, jsdiff's is 4.
  const patch = structuredPatch(fromName, toName, from, to, undefined, undefined, {
    context: options.context ?? 3,
  });
  return `--- ${fromName}\n+++ ${toName}\n${patch.hunks.map(renderHunk).join("")}`;
}
