/** One sample of a Prometheus text exposition: `name{label="value",…} value [timestamp]`. */
export type PromSample = { name: string; labels: Record<string, string>; value: number };

/** A line of an exposition that could not be read, and why. */
export type PromLineProblem = { line: number; reason: string };

/** What {@link parsePrometheusText} read: every sample, and the lines it had to skip. */
export type PromExposition = { samples: PromSample[]; problems: PromLineProblem[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function parseValue(text: string): number | undefined {
  switch (text) {
    case "NaN":
      return Number.NaN;
    case "+Inf":
      return Number.POSITIVE_INFINITY;
    case "-Inf":
      return Number.NEGATIVE_INFINITY;
  }
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

// Reads `{a="x",b="y"}` from `s` at `i` (just after the brace); returns the labels and the index after `}`.
function parseLabels(s: string, start: number): { labels: Record<string, string>; end: number } | string {
  const labels: Record<string, string> = {};
  let i = start;
  for (;;) {
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] === "}") return { labels, end: i + 1 };
    const name = LABEL_NAME.exec(s.slice(i))?.[0];
    if (!name) return `bad label name at column ${i + 1}`;
    i += name.length;
    while (s[i] === " ") i++;
    if (s[i] !== "=" || s[i + 1] !== '"') return `expected ="…" after label ${name}`;
    i += 2;
    let value = "";
    for (;;) {
      const c = s[i];
      if (c === undefined) return `unterminated value of label ${name}`;
      if (c === '"') break;
      if (c === "\\") {
        const next = s[i + 1];
        // The format escapes only backslash, double quote and line feed.
        value += next === "n" ? "\n" : next === '"' || next === "\\" ? next : `\\${next ?? ""}`;
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[name] = value;
    i++;
    while (s[i] === " " || s[i] === "\t") i++;
    if (s[i] === ",") i++;
    else if (s[i] !== "}") return `expected , or } after label ${name}`;
  }
}

/**
 * Parse the Prometheus text exposition format (version 0.0.4), as exporters such as NVIDIA's
 * dcgm-exporter and node_exporter serve it on `/metrics`. Comments (`# HELP`, `# TYPE`) are
 * skipped; a line that is not a valid sample is listed in `problems` and the rest still read.
 * Timestamps are ignored: the scrape's own time is the sample's time.
 *
 * @example
 * ```ts
 * parsePrometheusText('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-604a…"} 87\n').samples;
 * // [{ name: "DCGM_FI_DEV_GPU_UTIL", labels: { gpu: "0", UUID: "GPU-604a…" }, value: 87 }]
 * ```
 */
export function parsePrometheusText(text: string): PromExposition {
  const samples: PromSample[] = [];
  const problems: PromLineProblem[] = [];
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const problem = (reason: string) => problems.push({ line: n + 1, reason });
    const name = NAME.exec(line)?.[0];
    if (!name) {
      problem("no metric name");
      continue;
    }
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === "{") {
      const parsed = parseLabels(line, i + 1);
      if (typeof parsed === "string") {
        problem(parsed);
        continue;
      }
      labels = parsed.labels;
      i = parsed.end;
    }
    const rest = line.slice(i).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2 || rest[0] === "") {
      problem("expected a value and at most a timestamp");
      continue;
    }
    const value = parseValue(rest[0]);
    if (value === undefined) {
      problem(`bad value ${JSON.stringify(rest[0].slice(0, 32))}`);
      continue;
    }
    samples.push({ name, labels, value });
  }
  return { samples, problems };
}
