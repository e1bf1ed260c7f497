import type { ConfigIssue } from "./config-error.js";
import type { OptionSpec } from "./option-spec.js";
import { type OptionPath, type OptionValue, optionSpec } from "./options.js";

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads typed values out of an untrusted, layered configuration object, converting strings (from
 * the environment and flags) to numbers and booleans, and collecting every problem instead of
 * stopping at the first. Values are read only through the option table ({@link ConfigReader.option}),
 * so the keys read are the keys documented; keys never read are reported as unknown.
 */
export class ConfigReader {
  readonly issues: ConfigIssue[] = [];
  readonly #raw: Raw;
  readonly #prefix: string;
  readonly #read = new Set<string>();

  constructor(raw: unknown, prefix = "", issues?: ConfigIssue[]) {
    this.#prefix = prefix;
    if (issues) this.issues = issues;
    if (raw !== undefined && !isObject(raw)) {
      this.issue("", "must be an object");
      this.#raw = {};
    } else {
      this.#raw = raw ?? {};
    }
  }

  /** Records a problem at `key` below this reader's path. */
  issue(key: string, message: string): void {
    this.issues.push({ path: this.path(key), message });
  }

  path(key: string): string {
    if (!key) return this.#prefix || "(root)";
    return this.#prefix ? `${this.#prefix}.${key}` : key;
  }

  has(key: string): boolean {
    return this.#raw[key] !== undefined;
  }

  #get(key: string): unknown {
    this.#read.add(key);
    return this.#raw[key];
  }

  /** A nested object's reader (an empty one when absent). */
  child(key: string): ConfigReader {
    return new ConfigReader(this.#get(key), this.path(key), this.issues);
  }

  /** The raw array at `key` (empty when absent), each element with its own reader. */
  list(key: string): ConfigReader[] {
    const value = this.#get(key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.issue(key, "must be an array");
      return [];
    }
    return value.map((item, i) => new ConfigReader(item, `${this.path(key)}[${i}]`, this.issues));
  }

  /** A string or a list of strings at `key`; items outside the option's `values` are reported and dropped. */
  #strings(key: string, spec: OptionSpec): string[] | undefined {
    const value = this.#get(key);
    if (value === undefined || value === null) return undefined;
    const list = Array.isArray(value) ? value : [value];
    if (list.length === 0 || list.some((v) => typeof v !== "string" || v.trim() === "")) {
      this.issue(key, "must be a non-empty string or a non-empty list of non-empty strings");
      return undefined;
    }
    const { values } = spec;
    if (!values) return list as string[];
    for (const item of list) {
      if (!values.includes(item))
        this.issue(key, `${item} is not a ${spec.itemName ?? "allowed value"} (${values.join(", ")})`);
    }
    return (list as string[]).filter((item) => values.includes(item));
  }

  /** The keys of this object, in order. */
  keys(): string[] {
    return Object.keys(this.#raw);
  }

  /** The entries of the object at `key` (a map keyed by names), each with its own reader. */
  entries(key: string): [string, ConfigReader][] {
    const value = this.#get(key);
    if (value === undefined || value === null) return [];
    if (!isObject(value)) {
      this.issue(key, "must be an object");
      return [];
    }
    return Object.entries(value).map(([name, item]) => [
      name,
      new ConfigReader(item, `${this.path(key)}.${name}`, this.issues),
    ]);
  }

  /**
   * The value of the option at `path` (its last key, below this reader), typed, bounded and
   * defaulted as the option table says; a wrong value is reported and gives the default.
   *
   * @example
   * ```ts
   * reader.child("http").option("http.port"); // 8080 when absent
   * reader.child("gpuHourByType").option("cost.gpuHourByType.<type>", { key: "a100" });
   * ```
   */
  option<P extends OptionPath>(
    path: P,
    overrides: { default?: OptionValue<P>; key?: string } = {},
  ): OptionValue<P> {
    const spec: OptionSpec = optionSpec(path);
    // A map whose entries are values (`<name>` last) names the entry's key.
    const key = overrides.key ?? path.slice(path.lastIndexOf(".") + 1);
    const fallback = "default" in overrides ? overrides.default : spec.default;
    const def = Array.isArray(fallback) ? [...fallback] : fallback;
    switch (spec.type) {
      case "string":
        return this.#string(key, { default: def as string, nonEmpty: !spec.allowEmpty }) as OptionValue<P>;
      case "enum":
        return this.#string(key, { default: def as string, oneOf: spec.values }) as OptionValue<P>;
      case "integer":
        return this.#integer(key, { default: def as number, min: spec.min, max: spec.max }) as OptionValue<P>;
      case "number":
        return this.#number(key, { default: def as number, min: spec.min, max: spec.max }) as OptionValue<P>;
      case "boolean":
        return this.#boolean(key, { default: def as boolean }) as OptionValue<P>;
      case "list":
        return (this.#strings(key, spec) ?? def) as OptionValue<P>;
    }
  }

  #string(
    key: string,
    options: { default?: string; oneOf?: readonly string[]; nonEmpty?: boolean } = {},
  ): string | undefined {
    const value = this.#get(key);
    if (value === undefined || value === null) return options.default;
    if (typeof value !== "string") {
      this.issue(key, `must be a string, got ${typeof value}`);
      return options.default;
    }
    if (options.nonEmpty !== false && value.trim() === "") {
      this.issue(key, "must not be empty");
      return options.default;
    }
    if (options.oneOf && !options.oneOf.includes(value)) {
      this.issue(key, `must be one of ${options.oneOf.join(", ")}, got ${JSON.stringify(value)}`);
      return options.default;
    }
    return value;
  }

  #integer(key: string, options: { default?: number; min?: number; max?: number } = {}): number | undefined {
    const value = this.#get(key);
    if (value === undefined || value === null || value === "") return options.default;
    const n = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof n !== "number" || !Number.isInteger(n)) {
      this.issue(key, `must be an integer, got ${JSON.stringify(value)}`);
      return options.default;
    }
    if (options.min !== undefined && n < options.min) {
      this.issue(key, `must be at least ${options.min}, got ${n}`);
      return options.default;
    }
    if (options.max !== undefined && n > options.max) {
      this.issue(key, `must be at most ${options.max}, got ${n}`);
      return options.default;
    }
    return n;
  }

  #number(key: string, options: { default?: number; min?: number; max?: number } = {}): number | undefined {
    const value = this.#get(key);
    if (value === undefined || value === null || value === "") return options.default;
    // Decimal notation only: "1e3" or "0x10" in a price is more likely a typo than intended.
    const n = typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
    if (typeof n !== "number" || !Number.isFinite(n)) {
      this.issue(key, `must be a number, got ${JSON.stringify(value)}`);
      return options.default;
    }
    if (options.min !== undefined && n < options.min) {
      this.issue(key, `must be at least ${options.min}, got ${n}`);
      return options.default;
    }
    if (options.max !== undefined && n > options.max) {
      this.issue(key, `must be at most ${options.max}, got ${n}`);
      return options.default;
    }
    return n;
  }

  #boolean(key: string, options: { default?: boolean } = {}): boolean | undefined {
    const value = this.#get(key);
    if (value === undefined || value === null || value === "") return options.default;
    if (typeof value === "boolean") return value;
    if (typeof value === "string" && /^(true|1|yes|on)$/i.test(value)) return true;
    if (typeof value === "string" && /^(false|0|no|off)$/i.test(value)) return false;
    this.issue(key, `must be true or false, got ${JSON.stringify(value)}`);
    return options.default;
  }

  /** Reports every key of this object that no read asked for. Call after reading all keys. */
  rejectUnknownKeys(): void {
    for (const key of Object.keys(this.#raw)) {
      if (!this.#read.has(key)) this.issue(key, "is not a known setting");
    }
  }
}
