import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { ConfigError, type ConfigProblem } from "../errors.js";
import { outputPatternProblem } from "../sources/job-progress.js";
import { cadvisorAuthProblems } from "./cadvisor-rule.js";
import type { CollectorConfig } from "./collector-config.js";
import { type OptionSpec, optionSpecs } from "./options.js";
import { httpUrlProblem } from "./url-rule.js";

/** Where the configuration comes from. */
export type ConfigSources = {
  /** Command-line arguments after the command name. */
  argv?: string[];
  /** Environment (`JOBSIGHT_*`). @default process.env */
  env?: Record<string, string | undefined>;
  /** Reads the JSON file named by `--config` / `JOBSIGHT_CONFIG`. @default fs.readFileSync */
  readFile?: (path: string) => string;
  /** Default node name. @default os.hostname() */
  hostname?: string;
};

const bySpecFlag = new Map(optionSpecs.map((s) => [s.flag, s]));

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let o = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof o[p] !== "object" || o[p] === null) o[p] = {};
    o = o[p] as Record<string, unknown>;
  }
  o[parts[parts.length - 1]] = value;
}

function getPath(source: unknown, path: string): unknown {
  let o = source;
  for (const p of path.split(".")) {
    if (typeof o !== "object" || o === null) return undefined;
    o = (o as Record<string, unknown>)[p];
  }
  return o;
}

/** Coerce a raw value (a string from flags/env, or JSON) to the option's type, or say why not. */
function coerce(spec: OptionSpec, raw: unknown): { value?: unknown; problem?: string } {
  switch (spec.type) {
    case "string":
      if (typeof raw !== "string" || raw === "") return { problem: "must be a non-empty string" };
      return { value: raw };
    case "list": {
      const items = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : undefined;
      if (!items?.every((i) => typeof i === "string"))
        return { problem: "must be a comma-separated list or an array of strings" };
      const value = (items as string[]).map((i) => i.trim()).filter((i) => i !== "");
      if (value.length === 0) return { problem: "must name at least one item" };
      return { value };
    }
    case "enum":
      if (typeof raw !== "string" || !spec.values!.includes(raw))
        return { problem: `must be one of ${spec.values!.join(", ")}` };
      return { value: raw };
    case "boolean": {
      if (typeof raw === "boolean") return { value: raw };
      const t = String(raw).toLowerCase();
      if (["true", "1", "yes", "on"].includes(t)) return { value: true };
      if (["false", "0", "no", "off"].includes(t)) return { value: false };
      return { problem: "must be true or false" };
    }
    case "integer":
    case "number": {
      const n =
        typeof raw === "number"
          ? raw
          : typeof raw === "string" && raw.trim() !== ""
            ? Number(raw)
            : Number.NaN;
      if (!Number.isFinite(n))
        return { problem: `must be a ${spec.type === "integer" ? "whole number" : "number"}` };
      if (spec.type === "integer" && !Number.isInteger(n)) return { problem: "must be a whole number" };
      if (spec.min !== undefined && n < spec.min) return { problem: `must be at least ${spec.min}` };
      return { value: n };
    }
  }
}

/** Split argv into `--flag value` / `--flag=value` pairs, positional words and unknown flags. */
export function parseArgv(argv: string[]): {
  flags: Map<string, string>;
  positional: string[];
  problems: ConfigProblem[];
} {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  const problems: ConfigProblem[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name === "--help" || name === "--version" || name === "--print-config") {
      flags.set(name, "true");
      continue;
    }
    const known = bySpecFlag.has(name) || name === "--config" || name === "--job";
    if (!known) {
      problems.push({ path: name, message: "unknown option (see --help)" });
      continue;
    }
    let value: string | undefined = eq > 0 ? arg.slice(eq + 1) : argv[i + 1];
    if (eq < 0) {
      if (value === undefined || value.startsWith("--")) {
        const spec = bySpecFlag.get(name);
        if (spec?.type === "boolean") value = "true";
        else {
          problems.push({ path: name, message: "needs a value" });
          continue;
        }
      } else i++;
    }
    flags.set(name, value);
  }
  return { flags, positional, problems };
}

/**
 * Build the configuration from defaults, the JSON file (`--config` or `JOBSIGHT_CONFIG`), the
 * environment (`JOBSIGHT_*`) and flags, later sources winning; normalise it; check it. Every
 * problem is reported at once as `path: message` in one {@link ConfigError}.
 *
 * @example
 * ```ts
 * const config = loadConfig({ argv: ["--cluster", "hpc1", "--url", "https://jobsight.example.org"] });
 * ```
 */
export function loadConfig(sources: ConfigSources = {}): CollectorConfig {
  const env = sources.env ?? process.env;
  const { flags, problems } = parseArgv(sources.argv ?? []);
  const out: Record<string, unknown> = {};
  for (const spec of optionSpecs) if (spec.default !== undefined) setPath(out, spec.path, spec.default);

  const file = flags.get("--config") ?? env.JOBSIGHT_CONFIG;
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse((sources.readFile ?? ((p) => readFileSync(p, "utf8")))(file));
    } catch (error) {
      problems.push({ path: file, message: `cannot read configuration file: ${(error as Error).message}` });
    }
    if (parsed !== undefined) {
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        problems.push({ path: file, message: "must hold a JSON object" });
      } else {
        checkUnknownKeys(parsed as Record<string, unknown>, "", problems);
        for (const spec of optionSpecs) {
          const raw = getPath(parsed, spec.path);
          if (raw === undefined) continue;
          const r = coerce(spec, raw);
          if (r.problem) problems.push({ path: spec.path, message: `${r.problem} (in ${file})` });
          else setPath(out, spec.path, r.value);
        }
      }
    }
  }
  for (const [from, get] of [
    ["environment", (s: OptionSpec) => env[s.env]],
    ["flag", (s: OptionSpec) => flags.get(s.flag)],
  ] as const) {
    for (const spec of optionSpecs) {
      const raw = get(spec);
      if (raw === undefined) continue;
      const r = coerce(spec, raw);
      const where = from === "flag" ? spec.flag : spec.env;
      if (r.problem) problems.push({ path: spec.path, message: `${r.problem} (from ${where})` });
      else setPath(out, spec.path, r.value);
    }
  }
  const config = out as CollectorConfig;
  config.node ??= sources.hostname ?? hostname();
  config.kubernetes.namespaces ??= [];
  if (config.backend.url) config.backend.url = config.backend.url.replace(/\/+$/, "");
  problems.push(...checkRules(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const knownPaths = new Set(optionSpecs.map((s) => s.path));
function checkUnknownKeys(o: Record<string, unknown>, prefix: string, problems: ConfigProblem[]): void {
  for (const [k, v] of Object.entries(o)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (knownPaths.has(path)) continue;
    if (
      typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      [...knownPaths].some((p) => p.startsWith(`${path}.`))
    ) {
      checkUnknownKeys(v as Record<string, unknown>, path, problems);
    } else problems.push({ path, message: "unknown setting" });
  }
}

function checkRules(c: CollectorConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!c.cluster) problems.push({ path: "cluster", message: "is required (--cluster or JOBSIGHT_CLUSTER)" });
  else if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(c.cluster)) {
    problems.push({
      path: "cluster",
      message: "must be lower-case letters, digits, '-' and '_', at most 63 characters",
    });
  }
  if (c.backend.otlpUrl && !c.backend.url)
    problems.push({
      path: "backend.otlpUrl",
      message: "needs backend.url too: job records and events go to REST",
    });
  for (const [path, value] of [
    ["backend.url", c.backend.url],
    ["backend.otlpUrl", c.backend.otlpUrl],
    ["prometheus.cadvisorUrl", c.prometheus.cadvisorUrl],
    ["prometheus.nodeExporterUrl", c.prometheus.nodeExporterUrl],
  ] as const) {
    const problem = httpUrlProblem(path, value || undefined);
    if (problem) problems.push(problem);
  }
  for (const path of ["cadvisorUrl", "nodeExporterUrl"] as const) {
    if (c.prometheus[path] && c.mode !== "node")
      problems.push({ path: `prometheus.${path}`, message: "is scraped in node mode only (--mode node)" });
  }
  problems.push(...cadvisorAuthProblems(c.prometheus));
  if (c.backend.token && c.backend.tokenFile)
    problems.push({ path: "backend.token", message: "give either token or tokenFile, not both" });
  if (c.health.port > 65535) problems.push({ path: "health.port", message: "must be at most 65535" });
  problems.push(...checkKubernetes(c.kubernetes));
  const name = c.progress.fileName;
  if (name.includes("/") || name === "." || name === ".." || name === "")
    problems.push({ path: "progress.fileName", message: "must be a file name, not a path" });
  const pattern = c.progress.outputPattern;
  const bad = pattern !== undefined ? outputPatternProblem(pattern) : undefined;
  if (bad) problems.push({ path: "progress.outputPattern", message: bad });
  return problems;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
// One requirement of a label selector: `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`.
const SELECTOR_REQUIREMENT =
  /^\s*!?\s*[A-Za-z0-9][A-Za-z0-9._/-]*\s*(?:(?:==?|!=)\s*[A-Za-z0-9._-]*|\s(?:in|notin)\s*\([^()]*\))?\s*$/;

function checkKubernetes(k: CollectorConfig["kubernetes"]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const ns of k.namespaces) {
    if (!DNS_LABEL.test(ns))
      problems.push({
        path: "kubernetes.namespaces",
        message: `"${ns}" is not a namespace name (lower-case letters, digits and '-', at most 63 characters)`,
      });
  }
  if (k.inCluster && k.kubeconfig)
    problems.push({ path: "kubernetes.inCluster", message: "give either inCluster or kubeconfig, not both" });
  if (k.labelSelector !== undefined) {
    // Split on commas outside parentheses: `env in (a,b),tier=web` is two requirements.
    const parts = k.labelSelector.split(/,(?![^()]*\))/);
    const bad = parts.find((p) => !SELECTOR_REQUIREMENT.test(p));
    if (bad !== undefined)
      problems.push({
        path: "kubernetes.labelSelector",
        message: `"${bad.trim()}" is not a label requirement`,
      });
  }
  return problems;
}

/** `--help` text, made from the option table. */
export function helpText(): string {
  const lines = [
    "Usage: jobsight-collector [run] [options]",
    "       jobsight-collector epilog --job <id> [--health-port <port>]",
    "",
    "Options (flag | environment variable | default):",
    "  --config <file>  | JOBSIGHT_CONFIG | JSON file with the settings below (keys as in the first column's path)",
  ];
  for (const s of optionSpecs) {
    const value =
      s.type === "boolean"
        ? "[true|false]"
        : s.type === "enum"
          ? `<${s.values!.join("|")}>`
          : s.type === "list"
            ? "<a,b,…>"
            : "<value>";
    const def = s.default === undefined ? "" : ` (default ${s.default})`;
    lines.push(`  ${s.flag} ${value}  | ${s.env} | ${s.path}${def}`);
    lines.push(`      ${s.description}`);
  }
  lines.push("  --help, --version, --print-config");
  return lines.join("\n");
}
