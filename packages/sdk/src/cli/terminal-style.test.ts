import { describe, expect, it } from "vitest";
import { renderTable } from "./table.js";
import { colourDiff, createStyle, visibleWidth } from "./terminal-style.js";

describe("terminal style", () => {
  it.each([
    [{ isTTY: true }, {}, true],
    [{ isTTY: false }, {}, false],
    [{ isTTY: true }, { NO_COLOR: "" }, false],
    [{ isTTY: true }, { TERM: "dumb" }, false],
    [{ isTTY: false }, { FORCE_COLOR: "1" }, true],
    [{ isTTY: true }, { FORCE_COLOR: "0", NO_COLOR: "1" }, false],
  ])("colours %j with %j: %s", (tty, env, enabled) => {
    const style = createStyle({ ...tty, write: () => true }, env);
    expect(style.enabled).toBe(enabled);
    expect(style.red("x") === "x").toBe(!enabled);
  });

  it("colours diff lines by kind and counts visible width without codes", () => {
    const style = createStyle({ isTTY: true, write: () => true }, {});
    const coloured = colourDiff("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same", style);
    expect(coloured.split("\n")[3]).toBe("\u001b[31m-old\u001b[39m");
    expect(visibleWidth(style.bold("abc"))).toBe(3);
  });

  it("pads table columns by visible width", () => {
    const style = createStyle({ isTTY: true, write: () => true }, {});
    expect(renderTable(["a", "bb"], [[style.bold("xyz"), "1"]])).toBe(`a    bb\n${style.bold("xyz")}  1\n`);
  });
});
