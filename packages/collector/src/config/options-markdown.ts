import { optionSpecs } from "./options.js";

/** The README's options table, made from the option table (a test keeps the README in step). */
export function optionsMarkdown(): string {
  const rows = optionSpecs.map((s) => {
    const def = s.default === undefined ? "" : `\`${s.default}\``;
    const type = s.type === "enum" ? s.values!.map((v) => `\`${v}\``).join(" \\| ") : s.type;
    return `| \`${s.path}\` | \`${s.flag}\` | \`${s.env}\` | ${type} | ${def} | ${s.description} |`;
  });
  return [
    "| setting | flag | environment | type | default | meaning |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
