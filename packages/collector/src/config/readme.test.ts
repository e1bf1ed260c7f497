import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectorErrorCodes } from "../errors.js";
import { optionsMarkdown } from "./options-markdown.js";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
const section = (name: string) =>
  readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0]?.trim() ?? "";

// The formatter pads table cells and rulers; compare what the cells say, not their spacing.
const rows = (table: string) =>
  table.split("\n").map((row) =>
    row
      .replace(/\\\|/g, "\u0000")
      .split("|")
      .map((c) => c.trim().replace(/^-+$/, "---"))
      .join("|"),
  );

describe("README", () => {
  it("lists exactly the options the collector accepts", () => {
    expect(rows(section("options"))).toEqual(rows(optionsMarkdown()));
  });

  it("documents every error code", () => {
    const expected = ["| code | meaning |", "| --- | --- |"];
    for (const [code, meaning] of Object.entries(collectorErrorCodes))
      expected.push(`| \`${code}\` | ${meaning} |`);
    expect(rows(section("errors"))).toEqual(rows(expected.join("\n")));
  });
});
