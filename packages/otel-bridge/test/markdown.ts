/**
 * Markdown with table padding removed (`|  a   | b |` -> `|a|b|`, `| ---- |` -> `|---|`), so a
 * table generated from code can be found in a README that Biome has aligned.
 */
export function unpadTables(markdown: string): string {
  return markdown
    .split("\n")
    .map((line) =>
      line.startsWith("|")
        ? line
            .split("|")
            .map((cell) => cell.trim().replace(/^-{3,}$/, "---"))
            .join("|")
        : line,
    )
    .join("\n");
}
