/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A structured logger: one JSON object per line. */
export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
};

/** Options of {@link createLogger}. */
export type LoggerOptions = {
  /** Lowest level written. @default "info" */
  level?: LogLevel;
  /** Where lines go. @default process.stderr.write */
  write?: (line: string) => void;
  /** Fields added to every line. @default {} */
  base?: Record<string, unknown>;
};

function errorFields(value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code !== undefined ? { code } : {}) };
  }
  return value;
}

/**
 * A JSON-lines logger; never throws (a broken stderr must not stop collection).
 *
 * @example
 * ```ts
 * const log = createLogger({ level: "debug" });
 * log.info("round done", { jobs: 12, ms: 4.2 });
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const min = rank[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const base = options.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (rank[level] < min) return;
    try {
      const out: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...base };
      if (fields) for (const [k, v] of Object.entries(fields)) out[k] = errorFields(v);
      write(`${JSON.stringify(out)}\n`);
    } catch {
      // Logging must never take the collector down.
    }
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = createLogger({ level: "error", write: () => {} });
