import { splitLines, type TextLine } from "./text-lines.js";

type Op = { kind: " " | "-" | "+"; line: TextLine };

// Myers' O((N+M)·D) shortest edit script; submissions change few lines, so D stays tiny.
function editScript(a: TextLine[], b: TextLine[]): Op[] {
  const eq = (i: number, j: number) => a[i].text === b[j].text && a[i].eol === b[j].eol;
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
          ? v[offset + k + 1]
          : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && eq(x, y)) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  trace.push(v.slice());
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0 && (x > 0 || y > 0); d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1] < vd[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[--x] });
      y--;
    }
    if (d === 0) break;
    if (x === prevX) ops.push({ kind: "+", line: b[--y] });
    else ops.push({ kind: "-", line: a[--x] });
  }
  return ops.reverse();
}

function range(start: number, count: number): string {
  // GNU diff: a one-line range shows only its start; an empty one starts at the line before.
  if (count === 1) return String(start);
  return `${count === 0 ? start - 1 : start},${count}`;
}

function render(op: Op): string {
  const body = op.kind + op.line.text;
  return op.line.eol === "" ? `${body}\n\\ No newline at end of file\n` : body + op.line.eol;
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
  const context = options.context ?? 3;
  const ops = editScript(splitLines(from), splitLines(to));
  let out = `--- ${options.fromName ?? "a"}\n+++ ${options.toName ?? "b"}\n`;
  let i = 0;
  while (i < ops.length) {
    if (ops[i].kind === " ") {
      i++;
      continue;
    }
    // Grow a hunk over changes separated by at most 2 × context unchanged lines.
    let start = Math.max(0, i - context);
    while (start < i && ops[start].kind !== " ") start++;
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end].kind !== " ") end++;
      let gap = end;
      while (gap < ops.length && ops[gap].kind === " ") gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    let aLine = 1;
    let bLine = 1;
    for (let j = 0; j < start; j++) {
      if (ops[j].kind !== "+") aLine++;
      if (ops[j].kind !== "-") bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    out += `@@ -${range(aLine, aCount)} +${range(bLine, bCount)} @@\n`;
    for (const op of hunk) out += render(op);
    i = end;
  }
  return out;
}
