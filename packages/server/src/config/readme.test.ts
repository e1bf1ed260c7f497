import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { optionsMarkdown } from "./options-markdown.js";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
const section = (name: string) =>
  readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0]?.trim() ?? "";

// A formatter may pad table cells and rulers; compare what the cells say, not their spacing.
const rows = (table: string) =>
  table.split("\n").map((row) =>
    row
      .replace(/\\\|/g, "\u0000")
      .split("|")
      .map((c) => c.trim().replace(/^-+$/, "---"))
      .join("|"),
  );

describe("README", () => {
  it("lists exactly the settings the server accepts, under Configuration", () => {
    expect(readme.indexOf("## Configuration")).toBeGreaterThanOrEqual(0);
    expect(readme.indexOf("<!-- options:start -->")).toBeGreaterThan(readme.indexOf("## Configuration"));
    expect(rows(section("options"))).toEqual(rows(optionsMarkdown()));
  });
});
