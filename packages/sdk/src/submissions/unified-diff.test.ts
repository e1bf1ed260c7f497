import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type UnifiedDiffOptions, unifiedDiff } from "./unified-diff.js";

// Apply a diff with git, the way a user would, and return the patched file.
function gitApply(before: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-diff-"));
  try {
    writeFileSync(join(dir, "f"), before);
    writeFileSync(join(dir, "p.diff"), diff);
    execFileSync("git", ["apply", "--whitespace=nowarn", "p.diff"], { cwd: dir, stdio: "pipe" });
    return readFileSync(join(dir, "f"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Apply a diff with jsdiff. Each line of the diff carries its own end-of-line, so jsdiff must not
// guess one: by default it turns an LF line added to a CRLF file into CRLF.
function jsdiffApply(before: string, diff: string): string | false {
  return applyPatch(before, diff, { autoConvertLineEndings: false });
}

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\n", "a\n")).toBe("");
  });

  it("writes hunks like diff -u, with three lines of context", () => {
    const a = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", ""].join("\n");
    const b = a.replace("5\n", "five\n").replace("10\n", "10\n11\n");
    expect(unifiedDiff(a, b, { fromName: "a/f", toName: "b/f" })).toBe(
      "--- a/f\n+++ b/f\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n",
    );
  });

  it("splits distant changes into separate hunks, numbered as GNU diff numbers them", () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}\n`).join("");
    const b = `new\n${a.replace("l18\n", "L18\n")}`;
    expect(unifiedDiff(a, b)).toBe(
      "--- a\n+++ b\n@@ -1,3 +1,4 @@\n+new\n l0\n l1\n l2\n@@ -16,5 +17,5 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n",
    );
    expect(unifiedDiff("a\n", "")).toBe("--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n");
  });

  it("marks a missing final newline and keeps CRLF", () => {
    expect(unifiedDiff("x\r\ny", "x\r\nz")).toBe(
      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\r\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n",
    );
  });

  it("produces diffs that git apply turns the old text into the new one with", () => {
    const line = fc.constantFrom("#SBATCH --mem=4G", "#SBATCH -c 2", "", "run", "  memory: 1Gi", "# c", "x");
    const text = fc
      .tuple(fc.array(line, { maxLength: 25 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
      .map(([lines, eol, final]) => lines.join(eol) + (final && lines.length > 0 ? eol : ""));
    fc.assert(
      fc.property(text, text, (a, b) => {
        fc.pre(a !== b && a.length > 0);
        const diff = unifiedDiff(a, b, { fromName: "a/f", toName: "b/f" });
        expect(gitApply(a, diff)).toBe(b);
      }),
      { numRuns: 25 },
    );
  });

  it("produces diffs that jsdiff's applyPatch turns the old text into the new one with", () => {
    const ten = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", ""].join("\n");
    const twenty = Array.from({ length: 20 }, (_, i) => `l${i}\n`).join("");
    const cases: [string, string, UnifiedDiffOptions?][] = [
      [ten, ten.replace("5\n", "five\n").replace("10\n", "10\n11\n"), { fromName: "a/f", toName: "b/f" }],
      [twenty, `new\n${twenty.replace("l18\n", "L18\n")}`],
      ["a\n", ""],
      ["", "a\n"],
      ["x\r\ny", "x\r\nz"],
      ["a\r\nb", "a\r\nb\nb", { context: 0 }],
    ];
    for (const [a, b, options] of cases) expect(jsdiffApply(a, unifiedDiff(a, b, options))).toBe(b);

    const line = fc.constantFrom("#SBATCH --mem=4G", "#SBATCH -c 2", "", "run", "  memory: 1Gi", "x");
    const eol = fc.constantFrom("\n", "\r\n");
    const text = fc
      .tuple(fc.array(fc.tuple(line, eol), { maxLength: 30 }), fc.boolean())
      .map(([lines, final]) => {
        const joined = lines.map(([l, e]) => l + e).join("");
        return final || lines.length === 0 ? joined : joined.slice(0, -lines[lines.length - 1][1].length);
      });
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), (a, b, context) => {
        fc.pre(a !== b);
        expect(jsdiffApply(a, unifiedDiff(a, b, { context }))).toBe(b);
      }),
      { numRuns: 300 },
    );
  });
});
