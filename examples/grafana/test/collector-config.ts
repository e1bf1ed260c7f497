/**
 * Reading an OpenTelemetry Collector configuration the way the Collector does the parts a test can
 * check without running it: `${env:NAME:-default}` expansion, component ids (`type/name`),
 * pipelines and the references between them, and the few OTTL forms this example uses.
 */
import { parse } from "yaml";

/** A Collector configuration file, as YAML gives it. */
export interface CollectorConfig {
  extensions?: Record<string, unknown>;
  receivers?: Record<string, unknown>;
  processors?: Record<string, unknown>;
  exporters?: Record<string, unknown>;
  connectors?: Record<string, unknown>;
  service?: {
    extensions?: string[];
    pipelines?: Record<string, { receivers?: string[]; processors?: string[]; exporters?: string[] }>;
  };
}

/** A pipeline with its component ids resolved. */
export interface Pipeline {
  id: string;
  receivers: string[];
  processors: string[];
  exporters: string[];
}

/**
 * Parses the YAML text of a Collector configuration.
 *
 * @example
 * ```ts
 * const config = parseCollectorConfig(readFileSync("otel-collector.yaml", "utf8"));
 * ```
 */
export function parseCollectorConfig(text: string): CollectorConfig {
  const config = parse(text) as unknown;
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new Error("a Collector configuration is a YAML mapping");
  return config as CollectorConfig;
}

/**
 * Expands `${env:NAME}` and `${env:NAME:-default}` as the Collector's env provider does; a
 * variable neither in `env` nor defaulted is an error, so a test names every one it relies on.
 */
export function expandEnv(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback) => {
    const found = env[name] ?? fallback;
    if (found === undefined) throw new Error(`\${env:${name}} is not set and has no default`);
    return found;
  });
}

/** The type of a component id: `filter` of `filter/prometheus_aggregated`. */
export function componentType(id: string): string {
  return id.split("/", 1)[0];
}

/** The pipelines with environment variables in their component lists expanded. */
export function resolvePipelines(config: CollectorConfig, env: Readonly<Record<string, string>>): Pipeline[] {
  return Object.entries(config.service?.pipelines ?? {}).map(([id, p]) => ({
    id,
    receivers: (p.receivers ?? []).map((c) => expandEnv(c, env)),
    processors: (p.processors ?? []).map((c) => expandEnv(c, env)),
    exporters: (p.exporters ?? []).map((c) => expandEnv(c, env)),
  }));
}

/**
 * Every reference the service makes to a component that is not defined, as `path: message`.
 *
 * @example
 * ```ts
 * expect(undefinedComponents(config, { JOBSIGHT_PROMETHEUS_MODE: "per_job" })).toEqual([]);
 * ```
 */
export function undefinedComponents(
  config: CollectorConfig,
  env: Readonly<Record<string, string>>,
): string[] {
  const problems: string[] = [];
  for (const [i, id] of (config.service?.extensions ?? []).entries())
    if (!(id in (config.extensions ?? {}))) problems.push(`service.extensions[${i}]: ${id} is not defined`);
  for (const p of resolvePipelines(config, env)) {
    const sections = {
      receivers: config.receivers,
      processors: config.processors,
      exporters: config.exporters,
    };
    for (const [kind, defined] of Object.entries(sections)) {
      const ids = p[kind as keyof typeof sections];
      if (ids.length === 0 && kind !== "processors") problems.push(`service.pipelines.${p.id}: no ${kind}`);
      ids.forEach((id, i) => {
        if (!(id in (defined ?? {})))
          problems.push(`service.pipelines.${p.id}.${kind}[${i}]: ${id} is not defined`);
      });
    }
  }
  return problems;
}

/** The OTTL statements of a transform processor, from its flat or grouped `metric_statements`. */
export function metricStatements(processor: unknown): string[] {
  const list = (processor as { metric_statements?: unknown[] } | undefined)?.metric_statements ?? [];
  return list.flatMap((entry) =>
    typeof entry === "string" ? [entry] : ((entry as { statements?: string[] }).statements ?? []),
  );
}

/** The OTTL conditions of a filter processor's `metrics.metric` and `metrics.datapoint`. */
export function filterConditions(processor: unknown): { metric: string[]; datapoint: string[] } {
  const metrics = (processor as { metrics?: { metric?: string[]; datapoint?: string[] } } | undefined)
    ?.metrics;
  return { metric: metrics?.metric ?? [], datapoint: metrics?.datapoint ?? [] };
}

const ottlString = String.raw`("(?:[^"\\]|\\.)*")`;

/**
 * Whether a filter's metric conditions drop the metric of this name. Only the forms this example
 * uses are understood: `[not] IsMatch(name, "regexp")`, `name == "x"` and `name != "x"`; anything
 * else is an error rather than a guess.
 */
export function dropsMetric(conditions: readonly string[], name: string): boolean {
  return conditions.some((condition) => {
    const isMatch = new RegExp(String.raw`^(not\s+)?IsMatch\(name,\s*${ottlString}\)$`).exec(
      condition.trim(),
    );
    if (isMatch) return Boolean(isMatch[1]) !== new RegExp(JSON.parse(isMatch[2]) as string).test(name);
    const equals = new RegExp(String.raw`^name\s*(==|!=)\s*${ottlString}$`).exec(condition.trim());
    if (equals) return (equals[1] === "==") === (name === (JSON.parse(equals[2]) as string));
    throw new Error(`OTTL condition not understood by this test: ${condition}`);
  });
}

/** Attribute keys an OTTL statement or condition reads or writes (`attributes["k"]`, `delete_key(..., "k")`). */
export function attributeKeys(ottl: string): string[] {
  const keys = [...ottl.matchAll(new RegExp(String.raw`attributes\[${ottlString}\]`, "g"))].map(
    (m) => JSON.parse(m[1]) as string,
  );
  const deleted = new RegExp(String.raw`^delete_key\(\s*datapoint\.attributes,\s*${ottlString}\)`).exec(
    ottl.trim(),
  );
  return deleted ? [...keys, JSON.parse(deleted[1]) as string] : keys;
}

/** How a transform processor changes the point attributes the Prometheus exporter turns into labels. */
export interface LabelEdits {
  /** Point attribute ← resource attribute (copied when the resource has it). */
  copies: Array<{ to: string; from: string }>;
  /** Point attributes always removed. */
  deletes: string[];
}

/**
 * The label edits of a transform processor's statements. Unconditional `set(datapoint.attributes[..],
 * resource.attributes[..])` and `delete_key(datapoint.attributes, ..)` are understood; a `where`
 * clause makes a copy possible but a delete uncertain, so a conditional delete is not counted.
 */
export function labelEdits(statements: readonly string[]): LabelEdits {
  const edits: LabelEdits = { copies: [], deletes: [] };
  for (const statement of statements) {
    const [body, where] = statement.split(/\s+where\s+/, 2);
    const copy = new RegExp(
      String.raw`^set\(\s*datapoint\.attributes\[${ottlString}\],\s*resource\.attributes\[${ottlString}\]\s*\)$`,
    ).exec(body.trim());
    if (copy) {
      edits.copies.push({ to: JSON.parse(copy[1]) as string, from: JSON.parse(copy[2]) as string });
      continue;
    }
    const deleted = new RegExp(String.raw`^delete_key\(\s*datapoint\.attributes,\s*${ottlString}\s*\)$`).exec(
      body.trim(),
    );
    if (deleted) {
      if (where === undefined) edits.deletes.push(JSON.parse(deleted[1]) as string);
      continue;
    }
    throw new Error(`OTTL statement not understood by this test: ${statement}`);
  }
  return edits;
}
