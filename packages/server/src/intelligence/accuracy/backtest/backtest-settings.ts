import { readFileSync } from "node:fs";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { ConfigError, type ConfigIssue } from "../../../config/config-error.js";

type Bounds = { minimum?: number; exclusiveMinimum?: number; maximum?: number; exclusiveMaximum?: number };
const integer = (minimum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum, description }));
const number = (bounds: Bounds, description: string) =>
  Type.Optional(Type.Number({ ...bounds, description }));

/** Conformal calibration settings: every field of `ConformalOptions`, bounded. */
const ConformalSettings = Type.Object(
  {
    missRate: number(
      { exclusiveMinimum: 0, exclusiveMaximum: 0.5 },
      "Share of recommended jobs allowed to need more than the value, per bin.",
    ),
    rangeMiss: number({ minimum: 0, exclusiveMaximum: 0.5 }, "Share of jobs allowed below the range."),
    bins: integer(1, "Mondrian bins of the spread."),
    sizeBins: integer(1, "Bins of the predicted size, crossed with the spread bins."),
    minPerBin: integer(1, "Fewest calibration examples per bin."),
    abstainShare: number({ minimum: 0, exclusiveMaximum: 1 }, "Share of jobs, the widest, abstained on."),
    usageMissRate: number({ minimum: 0, exclusiveMaximum: 0.5 }, "Share of usage under-predicted; 0: off."),
    keepRequestAbove: number({ minimum: 0, maximum: 1 }, "Share of its request from which a job keeps it."),
    spreadFloor: number({ exclusiveMinimum: 0 }, "Smallest spread used to scale scores (log scale)."),
    outOfTimeCheck: Type.Optional(Type.Boolean({ description: "Correct the levels out of time." })),
  },
  { additionalProperties: false },
);

/**
 * The model's settings a backtest runs with (`jobsight backtest --settings FILE`): the fields of
 * `TrainResourceModelOptions` that change predictions, not the performance knob `parallelFromRows`, each
 * optional (absent: the default) and bounded; unknown keys are refused. The defaults and meaning of
 * each field are those of `TrainResourceModelOptions` and `ConformalOptions`.
 *
 * @example
 * ```ts
 * const settings: BacktestSettings = { trees: 100, conformal: { missRate: 0.006, outOfTimeCheck: true } };
 * ```
 */
export const BacktestSettings = Type.Object(
  {
    trees: integer(1, "Boosting rounds of each of the two ensembles."),
    maxDepth: integer(1, "Depth of the trees."),
    upperQuantile: number({ exclusiveMinimum: 0.5, exclusiveMaximum: 1 }, "Quantile of the upper ensemble."),
    maxTrainingRows: integer(1, "Most recent labelled jobs the ensembles train on."),
    calibrationShare: number(
      { exclusiveMinimum: 0, exclusiveMaximum: 1 },
      "Share of the most recently ended jobs held out to calibrate on.",
    ),
    maxCalibration: integer(1, "Most jobs held out for calibration."),
    deliveredJobs: integer(1, "Most ended jobs the record of delivered confidence weighs."),
    minUserJobs: integer(0, "Fewest completed jobs of a user before recommending."),
    conformal: Type.Optional(ConformalSettings),
  },
  { additionalProperties: false },
);
export type BacktestSettings = Static<typeof BacktestSettings>;

const compiled = TypeCompiler.Compile(BacktestSettings);

/**
 * Checks raw settings (a parsed JSON document) against {@link BacktestSettings}, reporting every
 * problem at once; the settings are returned unchanged.
 *
 * @throws {ConfigError} listing each problem as `path: message` (`conformal.missRate: must be a
 * number in (0, 0.5), got 0.7`; `tress: is not a known setting`).
 * @example
 * ```ts
 * const settings = parseBacktestSettings(JSON.parse(text));
 * await runBacktest({ trace, training: settings });
 * ```
 */
export function parseBacktestSettings(raw: unknown): BacktestSettings {
  if (compiled.Check(raw)) return raw;
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const error of compiled.Errors(raw)) {
    const path = dotted(error.path);
    if (seen.has(path)) continue;
    seen.add(path);
    const message =
      error.type === ValueErrorType.ObjectAdditionalProperties
        ? "is not a known setting"
        : `must be ${expected(error.schema)}, got ${show(error.value)}`;
    issues.push({ path, message });
  }
  throw new ConfigError(issues);
}

/**
 * Reads and checks a settings file (JSON). A file that cannot be read or is not JSON is one
 * problem at the file's path.
 *
 * @throws {ConfigError} listing each problem as `path: message`.
 * @example
 * ```ts
 * const settings = readBacktestSettings("settings.json"); // { conformal: { missRate: 0.006 } }
 * ```
 */
export function readBacktestSettings(file: string): BacktestSettings {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError([{ path: file, message: `cannot be read (${(error as Error).message})` }]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([{ path: file, message: `is not JSON (${(error as Error).message})` }]);
  }
  return parseBacktestSettings(raw);
}

/** `/conformal/missRate` → `conformal.missRate`; the document itself is `(root)`. */
function dotted(pointer: string): string {
  if (pointer === "") return "(root)";
  return pointer
    .slice(1)
    .split("/")
    .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** What a schema accepts, in words: `an integer ≥ 1`, `a number in (0, 0.5)`, `true or false`. */
function expected(schema: TSchema): string {
  const kind: Record<string, string> = {
    integer: "an integer",
    number: "a number",
    boolean: "true or false",
    object: "an object",
  };
  const what = kind[String(schema.type)] ?? "valid";
  const low =
    schema.exclusiveMinimum !== undefined
      ? { open: true, at: schema.exclusiveMinimum }
      : schema.minimum !== undefined
        ? { open: false, at: schema.minimum }
        : undefined;
  const high =
    schema.exclusiveMaximum !== undefined
      ? { open: true, at: schema.exclusiveMaximum }
      : schema.maximum !== undefined
        ? { open: false, at: schema.maximum }
        : undefined;
  if (low && high) return `${what} in ${low.open ? "(" : "["}${low.at}, ${high.at}${high.open ? ")" : "]"}`;
  if (low) return `${what} ${low.open ? ">" : "≥"} ${low.at}`;
  if (high) return `${what} ${high.open ? "<" : "≤"} ${high.at}`;
  return what;
}

function show(value: unknown): string {
  if (typeof value === "number") return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
