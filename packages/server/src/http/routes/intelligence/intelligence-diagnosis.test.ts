import { describe, expect, it } from "vitest";
import { prefersMarkdown } from "./intelligence-diagnosis.js";

describe("prefersMarkdown", () => {
  it("answers Markdown only when the caller rates it above JSON", () => {
    expect(prefersMarkdown("text/markdown")).toBe(true);
    expect(prefersMarkdown("text/markdown, application/json;q=0.5")).toBe(true);
    expect(prefersMarkdown("application/json, text/markdown;q=0.5")).toBe(false);
    expect(prefersMarkdown("text/markdown, */*")).toBe(true);
    expect(prefersMarkdown("text/markdown;q=0.5, */*")).toBe(false);
    expect(prefersMarkdown("text/markdown, application/json")).toBe(false);
    expect(prefersMarkdown("text/markdown;q=0")).toBe(false);
    expect(prefersMarkdown(undefined)).toBe(false);
    expect(prefersMarkdown("*/*")).toBe(false);
  });
});
