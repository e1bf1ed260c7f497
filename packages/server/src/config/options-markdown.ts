import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";

const code = (text: string) => `\`${text}\``;

function typeCell(s: OptionSpec): string {
  const values = s.values?.map(code).join(" \\| ");
  if (s.type === "enum") return values!;
  if (s.type === "list") return values ? `list of ${values}` : "list";
  return s.type;
}

function defaultCell(s: OptionSpec): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined) return "";
  if (Array.isArray(s.default)) return s.default.length === 0 ? "none" : s.default.map(code).join(", ");
  return s.default === "" ? '`""`' : code(String(s.default));
}

/**
 * The README's table of settings, made from the option table (a test keeps the README in step).
 *
 * @example
 * ```ts
 * optionsMarkdown().split("\n")[0]; // "| setting | flag | environment | type | default | meaning |"
 * ```
 */
export function optionsMarkdown(): string {
  const rows = serverOptions.map((s: OptionSpec) => {
    const flag = s.flag ? code(s.flag) : "";
    const env = s.env ? code(s.env) : "";
    const meaning = s.secret ? `${s.description} **Secret**: never printed.` : s.description;
    return `| ${code(s.path)} | ${flag} | ${env} | ${typeCell(s)} | ${defaultCell(s)} | ${meaning} |`;
  });
  return [
    "| setting | flag | environment | type | default | meaning |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
