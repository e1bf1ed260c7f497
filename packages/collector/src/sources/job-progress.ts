import type { UsageSample } from "@jobsight/schemas/light";

/** How far a job has got, as it counts its own work. */
export type JobProgress = NonNullable<UsageSample["progress"]>;

/** A progress line to look for in a job's output, and the unit it counts when it names none. */
export type OutputPattern = { pattern: RegExp; unit?: string };

/**
 * The progress lines the collector recognises in the tail of a job's output, most specific
 * first: tqdm's bar (`37%|███▋      | 370/1000 [00:10<00:17, 36.5it/s]`), counted steps, epochs,
 * iterations or batches (`step 1200/5000`, `Epoch 3/10`), then tqdm's bare percentage (`37%|`).
 * A pattern names its numbers with the groups `done` and `total`, or `percent`, and may name a
 * `unit`.
 */
export const DEFAULT_OUTPUT_PATTERNS: readonly OutputPattern[] = [
  { pattern: /\d+%\|[^|\r\n]*\|\s*(?<done>\d+(?:\.\d+)?)\/(?<total>\d+(?:\.\d+)?)\s*\[/g, unit: "it" },
  {
    pattern:
      /\b(?<unit>step|epoch|iteration|iter|batch)\b\s*[:=#]?\s*(?<done>\d+)\s*(?:\/|of)\s*(?<total>\d+)/gi,
  },
  { pattern: /(?<percent>\d+(?:\.\d+)?)%\|/g },
];

const NUMBER = String.raw`(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)`;
const COUNTED = new RegExp(String.raw`^${NUMBER}\s*/\s*${NUMBER}(?:\s+([A-Za-z][\w-]{0,63}))?$`);
const PERCENT = new RegExp(String.raw`^${NUMBER}\s*%$`);
const FRACTION = new RegExp(String.raw`^${NUMBER}$`);

/** A checked reading: finite, `done` ≥ 0 and at most `total`, `total` > 0. */
function progressOf(done: number, total: number, unit?: string): JobProgress | undefined {
  if (!Number.isFinite(done) || !Number.isFinite(total) || done < 0 || total <= 0) return undefined;
  const p: JobProgress = { done: Math.min(done, total), total };
  const u = unit?.toLowerCase().slice(0, 64);
  if (u) p.unit = u;
  return p;
}

// A fraction or a percentage is counted in percent: a rate of "% per hour" reads well in alerts.
const percent = (value: number) => progressOf(value, 100, "%");

/**
 * The job's progress from the text of its progress file: the last non-empty line, as
 * `<done>/<total> [unit]` (`1200/5000 step`), a percentage (`37%`, `37.5 %`), a fraction in
 * [0, 1] (`0.37`), or a JSON object `{"done": 1200, "total": 5000, "unit": "step"}`.
 * Undefined when the line says none of these.
 *
 * @example
 * ```ts
 * parseProgressFile("1200/5000 step\n"); // { done: 1200, total: 5000, unit: "step" }
 * parseProgressFile("0.25"); // { done: 25, total: 100, unit: "%" }
 * ```
 */
export function parseProgressFile(text: string): JobProgress | undefined {
  const lines = text.split(/[\r\n]+/);
  let line = "";
  for (let i = lines.length - 1; i >= 0 && !line; i--) line = lines[i].trim();
  if (!line) return undefined;
  if (line.startsWith("{")) {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      const unit = typeof o.unit === "string" ? o.unit : undefined;
      return typeof o.done === "number" && typeof o.total === "number"
        ? progressOf(o.done, o.total, unit)
        : undefined;
    } catch {
      return undefined;
    }
  }
  const counted = COUNTED.exec(line);
  if (counted) return progressOf(Number(counted[1]), Number(counted[2]), counted[3]);
  const pct = PERCENT.exec(line);
  if (pct) return percent(Number(pct[1]));
  const fraction = FRACTION.exec(line);
  if (fraction && Number(fraction[1]) <= 1) return percent(Number(fraction[1]) * 100);
  return undefined;
}

/**
 * The job's latest progress in the tail of its output: the last match of the first of
 * `patterns` that matches at all (so one pattern's count is followed, not a mix of two), with
 * its `done`/`total` (or `percent`) and `unit` groups. Undefined when nothing matches.
 *
 * @example
 * ```ts
 * progressFromOutput("Epoch 2/10\nEpoch 3/10\n"); // { done: 3, total: 10, unit: "epoch" }
 * ```
 */
export function progressFromOutput(
  text: string,
  patterns: readonly OutputPattern[] = DEFAULT_OUTPUT_PATTERNS,
): JobProgress | undefined {
  for (const { pattern, unit } of patterns) {
    let last: RegExpExecArray | undefined;
    // matchAll needs a global pattern; a site's pattern is compiled with `g` by the config.
    const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
    for (const m of text.matchAll(global)) last = m;
    const g = last?.groups;
    if (!g) continue;
    const found =
      g.percent !== undefined
        ? percent(Number(g.percent))
        : progressOf(Number(g.done), Number(g.total), g.unit ?? unit);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why a site's output pattern cannot be used, or undefined when it can: it must compile and
 * name `done` and `total`, or `percent`.
 *
 * @example
 * ```ts
 * outputPatternProblem("loss .* (?<done>\\d+)/(?<total>\\d+)"); // undefined
 * ```
 */
export function outputPatternProblem(source: string): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(source, "g");
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
  const named = new Set([...re.source.matchAll(/\(\?<([A-Za-z_]\w*)>/g)].map((m) => m[1]));
  if (named.has("percent") || (named.has("done") && named.has("total"))) return undefined;
  return "must name the groups (?<done>…) and (?<total>…), or (?<percent>…)";
}
