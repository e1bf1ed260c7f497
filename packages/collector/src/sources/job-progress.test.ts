import { describe, expect, it } from "vitest";
import { outputPatternProblem, parseProgressFile, progressFromOutput } from "./job-progress.js";

describe("parseProgressFile", () => {
  it("reads counted units, percentages, fractions and JSON from the last non-empty line", () => {
    expect(parseProgressFile("100/5000 step\n1200/5000 step\n\n")).toEqual({
      done: 1200,
      total: 5000,
      unit: "step",
    });
    expect(parseProgressFile("3 / 10")).toEqual({ done: 3, total: 10 });
    expect(parseProgressFile("37.5 %\n")).toEqual({ done: 37.5, total: 100, unit: "%" });
    expect(parseProgressFile("0.25")).toEqual({ done: 25, total: 100, unit: "%" });
    expect(parseProgressFile('{"done": 7, "total": 40, "unit": "File"}')).toEqual({
      done: 7,
      total: 40,
      unit: "file",
    });
  });

  it("says nothing for lines that are not progress, and caps done at the total", () => {
    for (const text of ["", "\n\n", "loss 0.31", "12", "5/0", "-1/10", "{not json", '{"done":"1","total":2}'])
      expect(parseProgressFile(text), JSON.stringify(text)).toBeUndefined();
    expect(parseProgressFile("12/10")).toEqual({ done: 10, total: 10 });
  });
});

describe("progressFromOutput", () => {
  it("follows tqdm's counted bar, written with carriage returns", () => {
    const tqdm =
      "train:  36%|███▌      | 360/1000 [00:10<00:17, 36.5it/s]\r" +
      "train:  37%|███▋      | 370/1000 [00:10<00:17, 36.5it/s]\r";
    expect(progressFromOutput(tqdm)).toEqual({ done: 370, total: 1000, unit: "it" });
  });

  it("takes the last step or epoch line, and tqdm's bare percentage when nothing is counted", () => {
    expect(progressFromOutput("Epoch 2/10 loss=0.4\nEpoch 3/10 loss=0.3\n")).toEqual({
      done: 3,
      total: 10,
      unit: "epoch",
    });
    expect(progressFromOutput("step: 1200 of 5000\n")).toEqual({ done: 1200, total: 5000, unit: "step" });
    expect(progressFromOutput(" 42%|████▏     |\r")).toEqual({ done: 42, total: 100, unit: "%" });
    expect(progressFromOutput("loading data\nloss 0.3\n")).toBeUndefined();
  });

  it("uses a site's pattern instead of the built-in ones", () => {
    const site = [{ pattern: /processed (?<done>\d+) of (?<total>\d+) (?<unit>files)/g }];
    expect(progressFromOutput("processed 10 of 400 files\nEpoch 3/10\n", site)).toEqual({
      done: 10,
      total: 400,
      unit: "files",
    });
    expect(progressFromOutput("Epoch 3/10\n", site)).toBeUndefined();
  });
});

describe("outputPatternProblem", () => {
  it("accepts patterns naming done and total, or percent, and rejects the rest", () => {
    expect(outputPatternProblem("(?<done>\\d+)/(?<total>\\d+)")).toBeUndefined();
    expect(outputPatternProblem("(?<percent>\\d+)%")).toBeUndefined();
    expect(outputPatternProblem("(\\d+)/(\\d+)")).toMatch(/must name the groups/);
    expect(outputPatternProblem("(?<done>\\d+")).toMatch(/is not a regular expression/);
  });
});
