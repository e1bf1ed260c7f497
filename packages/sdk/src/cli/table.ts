import { visibleWidth } from "./terminal-style.js";

/**
 * Render rows as a plain-text table with padded columns (colour codes do not count as width).
 *
 * @example
 * ```ts
 * renderTable(["resource", "value"], [["memory", "24.0 GiB"]]);
 * // "resource  value\nmemory    24.0 GiB\n"
 * ```
 */
export function renderTable(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, c) => Math.max(...all.map((r) => visibleWidth(r[c] ?? ""))));
  return all
    .map((row) =>
      row
        .map((cell, c) => (c === row.length - 1 ? cell : cell + " ".repeat(widths[c] - visibleWidth(cell))))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}
