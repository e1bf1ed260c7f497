import { describe, expect, it } from "vitest";
import { ProgressBar } from "./progress-bar.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, s: { isTTY, write: (t: string) => writes.push(t) } };
}

describe("ProgressBar", () => {
  it("redraws one line in place on a terminal, at most once per interval, with an estimate", () => {
    let t = 0;
    const { writes, s } = stream(true);
    const bar = new ProgressBar({ total: 10, stream: s, label: "importing", width: 10, now: () => t });
    t = 1000;
    bar.tick(5);
    t = 1050;
    bar.tick();
    t = 1200;
    bar.tick();
    bar.finish();
    expect(writes).toEqual([
      "\rimporting [#####.....] 5/10 50% 1s left",
      "\rimporting [#######...] 7/10 70% 1s left",
      "\rimporting [##########] 10/10 100%",
      "\n",
    ]);
  });

  it("prints a line per quarter in a log", () => {
    const { writes, s } = stream(false);
    const bar = new ProgressBar({ total: 100, stream: s, width: 4, now: () => 0 });
    for (let i = 0; i < 100; i++) bar.tick();
    bar.finish();
    expect(writes).toEqual([
      "[#...] 25/100 25% 0s left\n",
      "[##..] 50/100 50% 0s left\n",
      "[###.] 75/100 75% 0s left\n",
      "[####] 100/100 100%\n",
    ]);
  });
});
