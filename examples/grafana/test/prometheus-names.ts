/**
 * The names the OpenTelemetry Collector's Prometheus exporter gives OTLP metrics and attributes
 * under its default translation strategy, `UnderscoreEscapingWithSuffixes`. The exporter delegates
 * to `github.com/prometheus/otlptranslator` (`metric_namer.go`, `unit_namer.go`, `strconv.go`);
 * this is a transcription of the parts Jobsight's metrics meet, so a test can predict what a
 * dashboard must query without running a collector.
 *
 * Metric names:
 * 1. The OTLP name is split into tokens at every character outside `[a-zA-Z0-9:]` (dots,
 *    underscores, dashes), so `jobsight.job.memory.oom_kill.count` has the tokens `jobsight`,
 *    `job`, `memory`, `oom`, `kill`, `count`.
 * 2. The unit adds a token unless the name already holds that word: `By` → `bytes`, `s` →
 *    `seconds`, `W` → `watts`, `Cel` → `celsius` (table below); a unit in braces such as `{event}`
 *    or `{cpu}` is an annotation and adds nothing, and `1` adds nothing. `X/Y` adds `X_per_Y`.
 * 3. A monotonic cumulative Sum (a counter) ends in `total`; a Gauge with unit `1` ends in
 *    `ratio` (a non-monotonic Sum with unit `1` does not).
 * 4. The tokens are joined with `_`.
 *
 * Label names: every run of characters outside `[a-zA-Z0-9]` becomes one `_` (`user.name` →
 * `user_name`, `jobsight.gpu.pci_bus_id` → `jobsight_gpu_pci_bus_id`), and a name that would
 * start with a digit gets `key_` in front.
 */

/** OTLP (UCUM) units the translator spells out; any other unit is kept as it is. */
const unitWords: Readonly<Record<string, string>> = {
  d: "days",
  h: "hours",
  min: "minutes",
  s: "seconds",
  ms: "milliseconds",
  us: "microseconds",
  ns: "nanoseconds",
  By: "bytes",
  KiBy: "kibibytes",
  MiBy: "mebibytes",
  GiBy: "gibibytes",
  TiBy: "tibibytes",
  KBy: "kilobytes",
  MBy: "megabytes",
  GBy: "gigabytes",
  TBy: "terabytes",
  m: "meters",
  V: "volts",
  A: "amperes",
  J: "joules",
  W: "watts",
  g: "grams",
  Cel: "celsius",
  Hz: "hertz",
  "1": "",
  "%": "percent",
};

/** The denominator of a rate unit (`By/s` → `per_second`). */
const perUnitWords: Readonly<Record<string, string>> = {
  s: "second",
  m: "minute",
  h: "hour",
  d: "day",
  w: "week",
  mo: "month",
  y: "year",
};

/** What the translator needs to know of an OTLP metric. */
export interface OtlpMetricShape {
  name: string;
  /** UCUM unit, as in the OTLP `Metric.unit` field. */
  unit: string;
  /** `counter` is a cumulative monotonic Sum; `sum` a non-monotonic one. */
  kind: "gauge" | "counter" | "sum";
}

function unitPart(unit: string | undefined, words: Readonly<Record<string, string>>): string {
  const trimmed = unit?.trim() ?? "";
  if (trimmed === "" || /[{}]/.test(trimmed)) return "";
  return words[trimmed] ?? trimmed;
}

/** Invalid characters to `_`, runs of `_` to one, no leading `_` (otlptranslator `cleanUpUnit`). */
function cleanUpUnit(unit: string): string {
  return unit
    .replace(/[^a-zA-Z0-9:]/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_/, "");
}

/**
 * The Prometheus name of an OTLP metric, as the Collector's Prometheus exporter writes it.
 *
 * @example
 * ```ts
 * prometheusMetricName({ name: "jobsight.job.memory.usage", unit: "By", kind: "gauge" });
 * // "jobsight_job_memory_usage_bytes"
 * prometheusMetricName({ name: "jobsight.job.cpu.time", unit: "s", kind: "counter" });
 * // "jobsight_job_cpu_time_seconds_total"
 * ```
 */
export function prometheusMetricName(metric: OtlpMetricShape): string {
  let tokens = metric.name.split(/[^a-zA-Z0-9:]+/).filter((t) => t !== "");
  const slash = metric.unit.indexOf("/");
  const main = slash < 0 ? metric.unit : metric.unit.slice(0, slash);
  const per = slash < 0 ? undefined : metric.unit.slice(slash + 1);
  let mainWord = cleanUpUnit(unitPart(main, unitWords));
  const perWord = unitPart(per, perUnitWords);
  let perToken = perWord === "" ? "" : cleanUpUnit(`per_${perWord}`).replace(/_$/, "");
  if (tokens.includes(mainWord)) mainWord = "";
  if (tokens.includes(perToken)) perToken = "";
  if (perToken !== "") mainWord = mainWord.replace(/_$/, "");
  if (mainWord !== "") tokens.push(mainWord);
  if (perToken !== "") tokens.push(perToken);
  if (metric.kind === "counter") tokens = [...tokens.filter((t) => t !== "total"), "total"];
  if (metric.unit === "1" && metric.kind === "gauge")
    tokens = [...tokens.filter((t) => t !== "ratio"), "ratio"];
  const name = tokens.join("_");
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * The Prometheus label name of an OTLP attribute key.
 *
 * @example
 * ```ts
 * prometheusLabelName("jobsight.gpu.pci_bus_id"); // "jobsight_gpu_pci_bus_id"
 * ```
 */
export function prometheusLabelName(key: string): string {
  const reserved = /^__.+__$/.test(key);
  const inner = reserved ? key.slice(2, -2) : key;
  const sanitised = inner.replace(/[^a-zA-Z0-9]+/g, "_");
  if (reserved) return `__${sanitised}__`;
  return /^[0-9]/.test(sanitised) ? `key_${sanitised}` : sanitised;
}

/**
 * Labels the Prometheus exporter adds to every series by itself: `job` (from `service.namespace`
 * and `service.name`), `instance` (from `service.instance.id`), and the instrumentation scope
 * (unless `without_scope_info` is set).
 */
export const exporterLabels: readonly string[] = ["job", "instance", "otel_scope_name", "otel_scope_version"];
