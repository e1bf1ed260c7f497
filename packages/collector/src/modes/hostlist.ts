/**
 * Expand a SLURM host list (`vm`, `node[01-03,07]`, `gpu[1-2],cpu5`) into node names.
 *
 * @example
 * ```ts
 * expandHostlist("n[01-03],gpu7"); // ["n01", "n02", "n03", "gpu7"]
 * ```
 */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  // Split on commas that are not inside brackets.
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === "[") depth++;
    else if (list[i] === "]") depth--;
    else if (list[i] === "," && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^[]*)\[([^\]]+)\](.*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    for (const range of m[2].split(",")) {
      const [a, b] = range.split("-");
      if (b === undefined) {
        out.push(`${m[1]}${a}${m[3]}`);
        continue;
      }
      const from = Number(a);
      const to = Number(b);
      if (!Number.isInteger(from) || !Number.isInteger(to) || to < from || to - from > 100_000) continue;
      for (let n = from; n <= to; n++) out.push(`${m[1]}${String(n).padStart(a.length, "0")}${m[3]}`);
    }
  }
  return out;
}
