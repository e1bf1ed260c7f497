import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** A file of an example in which requests can hide: Python, shell, YAML. */
export type ExampleSource = { example: string; file: string; text: string };

/** A request written in an example's code: a Python API call or a curl command. */
export type HttpCallSite = {
  example: string;
  file: string;
  line: number;
  method: string;
  /** The path with every placeholder (`{job_id}`, `$JOB_ID`) as `{}`. */
  path: string;
  /** `jobsight` when the URL is the Jobsight server's, else `external` (e.g. the GitHub API). */
  target: "jobsight" | "external";
  /** Query parameter names the call passes (values are known only at run time). */
  queryNames: string[];
  /** Whether the call sends a body. */
  hasBody: boolean;
};

/** A `jobsight <command>` run by an example (in a script, a YAML step or an Airflow task). */
export type CliCallSite = { example: string; file: string; line: number; command: string; text: string };

const SOURCE_FILE = /\.(py|sh|ya?ml)$/;

/**
 * Reads every Python, shell and YAML file of the given examples, leaving out their tests.
 *
 * @example
 * ```ts
 * const sources = await readExampleSources("/work/main/examples", ["airflow", "argo"]);
 * ```
 */
export async function readExampleSources(root: string, examples: string[]): Promise<ExampleSource[]> {
  const sources: ExampleSource[] = [];
  for (const example of examples) {
    const base = join(root, example);
    const entries = await readdir(base, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      const file = relative(base, path);
      if (!entry.isFile() || !SOURCE_FILE.test(entry.name) || file.startsWith("test/")) continue;
      sources.push({ example, file, text: await readFile(path, "utf8") });
    }
  }
  return sources.sort((a, b) => `${a.example}/${a.file}`.localeCompare(`${b.example}/${b.file}`));
}

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Shell lines with their `\`-continuations joined, each with the number of its first line. */
function shellLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const first = i;
    let joined = lines[i];
    while (joined.trimEnd().endsWith("\\") && i + 1 < lines.length)
      joined = `${joined.trimEnd().slice(0, -1)} ${lines[++i]}`;
    out.push({ text: joined, line: first + 1 });
  }
  return out;
}

/**
 * The requests a Python file makes through `JobsightApi._request("METHOD", "/path", ...)`.
 *
 * @example
 * ```ts
 * pythonCalls(source); // [{ method: "POST", path: "/v1/predictions", ... }]
 * ```
 */
export function pythonCalls(source: ExampleSource): HttpCallSite[] {
  if (!source.file.endsWith(".py")) return [];
  return [...source.text.matchAll(/\._request\(\s*"([A-Z]+)",\s*f?"([^"]+)"([^)]*)\)/g)].map((m) => {
    const query = /query=\{([^}]*)\}/.exec(m[3])?.[1] ?? "";
    return {
      example: source.example,
      file: source.file,
      line: lineAt(source.text, m.index),
      method: m[1],
      path: m[2].replace(/\{[^}]*\}/g, "{}"),
      target: "jobsight",
      queryNames: [...query.matchAll(/"(\w+)"\s*:/g)].map((q) => q[1]),
      hasBody: /\bbody=/.test(m[3]),
    };
  });
}

/**
 * The curl commands of a shell script or YAML file: method from `--request`/`-X` (else POST with a
 * body, GET without), path from the URL with shell variables as `{}`.
 *
 * @example
 * ```ts
 * curlCalls(source); // [{ method: "POST", path: "/repos/{}/issues/{}/comments", target: "external" }]
 * ```
 */
export function curlCalls(source: ExampleSource): HttpCallSite[] {
  if (source.file.endsWith(".py")) return [];
  const calls: HttpCallSite[] = [];
  for (const { text, line } of shellLines(source.text)) {
    const command = /(?:^|[;&|(!]|\$\()\s*curl\s+(.*)$/.exec(text)?.[1];
    if (!command) continue;
    const url = command.match(/"?(\$\{?\w+(?::-[^}]*)?\}?|https?:\/\/)[^\s"]*"?\s*(?:[|;&>]|$)/)?.[0] ?? "";
    const target = /JOBSIGHT_URL/.test(url) ? "jobsight" : "external";
    const path = url
      .replace(/^"?(\$\{[^}]*\}|\$\w+|https?:\/\/[^/"\s]+)/, "")
      .replace(/["|;&>\s]+$/, "")
      .replace(/\$\{[^}]*\}|\$\w+/g, "{}");
    const explicit = /(?:--request|-X)\s+"?([A-Z]+)/.exec(command)?.[1];
    const method = explicit ?? (/\s(--data\S*|-d|--json)\s/.test(` ${command} `) ? "POST" : "GET");
    const query = path.includes("?") ? path.slice(path.indexOf("?") + 1) : "";
    calls.push({
      example: source.example,
      file: source.file,
      line,
      method,
      path: path.split("?")[0],
      target,
      queryNames: query ? query.split("&").map((pair) => pair.split("=")[0]) : [],
      hasBody: /\s(--data\S*|-d|--json)\s/.test(` ${command} `),
    });
  }
  return calls;
}

/**
 * Every `jobsight <command>` in command position (start of a line or a shell command, or the start
 * of a quoted command string such as an Airflow `bash_command`), not in messages.
 *
 * @example
 * ```ts
 * cliCalls(source); // [{ command: "diagnose", text: 'jobsight diagnose "$JOB_ID" --format markdown', ... }]
 * ```
 */
export function cliCalls(source: ExampleSource): CliCallSite[] {
  const calls: CliCallSite[] = [];
  for (const { text, line } of shellLines(source.text)) {
    for (const m of text.matchAll(/(?:^|[;&|(!'"]|\$\()\s*(jobsight\s+([a-z]+)\b[^'\n]*)/g)) {
      calls.push({ example: source.example, file: source.file, line, command: m[2], text: m[1].trim() });
    }
  }
  return calls;
}
