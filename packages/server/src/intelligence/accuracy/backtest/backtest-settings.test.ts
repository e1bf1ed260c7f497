import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { ConfigError } from "../../../config/config-error.js";
import type { ConformalOptions } from "../../calibration/conformal-options.js";
import type { TrainResourceModelOptions } from "../../training/train-resource-model.js";
import { type BacktestSettings, parseBacktestSettings, readBacktestSettings } from "./backtest-settings.js";

const dir = mkdtempSync(join(tmpdir(), "jobsight-backtest-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `path: message` lines of the error `fn` throws. */
function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("no error thrown");
}

const everySetting: BacktestSettings = {
  trees: 50,
  maxDepth: 4,
  upperQuantile: 0.85,
  maxTrainingRows: 50_000,
  calibrationShare: 0.25,
  maxCalibration: 10_000,
  deliveredJobs: 4_000,
  minUserJobs: 0,
  conformal: {
    missRate: 0.006,
    rangeMiss: 0.01,
    bins: 4,
    sizeBins: 2,
    minPerBin: 300,
    abstainShare: 0,
    usageMissRate: 0,
    keepRequestAbove: 0.5,
    spreadFloor: 0.05,
    outOfTimeCheck: false,
  },
};

describe("BacktestSettings", () => {
  it("covers every model setting of the training options and every conformal option", () => {
    // Checked by the type checker: a field added to the options must be added to the schema.
    expectTypeOf<Required<BacktestSettings>["conformal"]>().toEqualTypeOf<ConformalOptions>();
    expectTypeOf<BacktestSettings>().toEqualTypeOf<Omit<TrainResourceModelOptions, "parallelFromRows">>();
  });

  it("accepts a file with every setting, and an empty one (the defaults), unchanged", () => {
    const file = join(dir, "every.json");
    writeFileSync(file, JSON.stringify(everySetting));
    expect(readBacktestSettings(file)).toEqual(everySetting);
    expect(parseBacktestSettings({})).toEqual({});
    expect(parseBacktestSettings({ conformal: { missRate: 0.01 } })).toEqual({
      conformal: { missRate: 0.01 },
    });
  });

  it("refuses unknown keys, at the top and inside conformal, naming them", () => {
    expect(problems(() => parseBacktestSettings({ trees: 10, parallelFromRows: 5 }))).toEqual([
      "parallelFromRows: is not a known setting",
    ]);
    expect(problems(() => parseBacktestSettings({ conformal: { missrate: 0.01 } }))).toEqual([
      "conformal.missrate: is not a known setting",
    ]);
  });

  it("refuses values of the wrong type", () => {
    expect(problems(() => parseBacktestSettings({ trees: "100" }))).toEqual([
      'trees: must be an integer ≥ 1, got "100"',
    ]);
    expect(problems(() => parseBacktestSettings({ maxDepth: 2.5 }))).toEqual([
      "maxDepth: must be an integer ≥ 1, got 2.5",
    ]);
    expect(problems(() => parseBacktestSettings({ conformal: { outOfTimeCheck: "yes" } }))).toEqual([
      'conformal.outOfTimeCheck: must be true or false, got "yes"',
    ]);
    expect(problems(() => parseBacktestSettings({ conformal: 0.01 }))).toEqual([
      "conformal: must be an object, got 0.01",
    ]);
    expect(problems(() => parseBacktestSettings([]))).toEqual(["(root): must be an object, got []"]);
    expect(problems(() => parseBacktestSettings(null))).toEqual(["(root): must be an object, got null"]);
  });

  it("refuses values out of range, and lists every problem at once", () => {
    for (const missRate of [0, 0.5, 0.7, -0.01]) {
      expect(problems(() => parseBacktestSettings({ conformal: { missRate } }))).toEqual([
        `conformal.missRate: must be a number in (0, 0.5), got ${missRate}`,
      ]);
    }
    expect(parseBacktestSettings({ conformal: { missRate: 0.499 } })).toEqual({
      conformal: { missRate: 0.499 },
    });
    expect(
      problems(() =>
        parseBacktestSettings({
          trees: 0,
          upperQuantile: 0.5,
          minUserJobs: -1,
          conformal: { keepRequestAbove: 1.5, rangeMiss: 0.5 },
        }),
      ).sort(),
    ).toEqual([
      "conformal.keepRequestAbove: must be a number in [0, 1], got 1.5",
      "conformal.rangeMiss: must be a number in [0, 0.5), got 0.5",
      "minUserJobs: must be an integer ≥ 0, got -1",
      "trees: must be an integer ≥ 1, got 0",
      "upperQuantile: must be a number in (0.5, 1), got 0.5",
    ]);
  });

  it("reports an unreadable file and a file that is not JSON as one problem at the file", () => {
    const missing = join(dir, "missing.json");
    expect(problems(() => readBacktestSettings(missing))).toEqual([
      expect.stringMatching(new RegExp(`^${missing}: cannot be read \\(ENOENT`)),
    ]);
    const broken = join(dir, "broken.json");
    writeFileSync(broken, '{ "trees": 10, }');
    expect(problems(() => readBacktestSettings(broken))).toEqual([
      expect.stringMatching(new RegExp(`^${broken}: is not JSON \\(`)),
    ]);
  });
});
