import type { TextLine } from "../text-lines.js";

/** One option found in the `#SBATCH` block, with where its value sits so it can be replaced in place. */
export type SbatchOption = {
  /** Canonical long name, e.g. `mem`, `cpus-per-task` (short options are mapped to theirs). */
  name: string;
  /** The value as `sbatch` sees it (quotes and escapes removed); "" for a flag. */
  value: string;
  /** 0-based line index. */
  line: number;
  /** Offsets of the value's raw text within the line (quotes included), [start, end). */
  valueStart: number;
  valueEnd: number;
};

/** What the `#SBATCH` block of a script holds. */
export type SbatchDirectives = {
  options: SbatchOption[];
  /** Index of the last `#SBATCH` line, -1 when there is none. */
  lastDirectiveLine: number;
  /** Index of the first command line (where `sbatch` stops reading directives), or the line count. */
  firstCommandLine: number;
};

// sbatch's short options that take an argument, and the long names the parser cares about.
const shortWithArgument = "aAbBcCdDeFGiJLmMnNopPqStUwx";
const shortToLong: Record<string, string> = {
  a: "array",
  A: "account",
  c: "cpus-per-task",
  G: "gpus",
  J: "job-name",
  n: "ntasks",
  N: "nodes",
  p: "partition",
  q: "qos",
  t: "time",
};
// Long options of sbatch that require an argument (so `--name value` consumes the next word).
const longWithArgument = new Set([
  "account",
  "array",
  "begin",
  "chdir",
  "clusters",
  "comment",
  "constraint",
  "core-spec",
  "cpus-per-gpu",
  "cpus-per-task",
  "dependency",
  "distribution",
  "error",
  "exclude",
  "export",
  "extra-node-info",
  "gpu-bind",
  "gpus",
  "gpus-per-node",
  "gpus-per-socket",
  "gpus-per-task",
  "gres",
  "gres-flags",
  "hint",
  "input",
  "job-name",
  "licenses",
  "mail-type",
  "mail-user",
  "mcs-label",
  "mem",
  "mem-bind",
  "mem-per-cpu",
  "mem-per-gpu",
  "mincpus",
  "nodefile",
  "nodelist",
  "nodes",
  "ntasks",
  "ntasks-per-core",
  "ntasks-per-gpu",
  "ntasks-per-node",
  "ntasks-per-socket",
  "output",
  "partition",
  "prefer",
  "priority",
  "profile",
  "qos",
  "reservation",
  "signal",
  "sockets-per-node",
  "cores-per-socket",
  "threads-per-core",
  "switches",
  "time",
  "time-min",
  "tmp",
  "wckey",
  "wrap",
  "cluster-constraint",
  "deadline",
  "delay-boot",
  "gid",
  "uid",
  "network",
  "open-mode",
  "acctg-freq",
  "batch",
  "bb",
  "bbf",
  "container",
  "cpu-freq",
  "kill-on-invalid-dep",
  "power",
]);

type Token = { text: string; start: number; end: number };

// The argument splitter of sbatch's `_get_argument`: whitespace separates, quotes group,
// a backslash escapes, an unquoted `#` starts a comment.
function tokenize(line: string, from: number): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i])) i++;
    if (i >= line.length || line[i] === "#") break;
    const start = i;
    let text = "";
    let quote = "";
    while (i < line.length && (quote !== "" || !/\s/.test(line[i]))) {
      const c = line[i];
      if (c === "\\" && i + 1 < line.length) {
        text += line[i + 1];
        i += 2;
        continue;
      }
      if (quote !== "") {
        if (c === quote) quote = "";
        else text += c;
      } else if (c === '"' || c === "'") {
        quote = c;
      } else if (c === "#") {
        break;
      } else {
        text += c;
      }
      i++;
    }
    tokens.push({ text, start, end: i });
    if (line[i] === "#") break;
  }
  return tokens;
}

function optionsOfLine(line: string, index: number): SbatchOption[] {
  const tokens = tokenize(line, "#SBATCH".length);
  const options: SbatchOption[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    const raw = line.slice(token.start, token.end);
    if (raw.startsWith("--") && raw.length > 2) {
      const eq = raw.indexOf("=");
      if (eq > 2) {
        const name = raw.slice(2, eq);
        options.push({
          name,
          value: token.text.slice(token.text.indexOf("=") + 1),
          line: index,
          valueStart: token.start + eq + 1,
          valueEnd: token.end,
        });
      } else {
        const name = raw.slice(2);
        const next = tokens[t + 1];
        if (longWithArgument.has(name) && next) {
          options.push({ name, value: next.text, line: index, valueStart: next.start, valueEnd: next.end });
          t++;
        } else {
          options.push({ name, value: "", line: index, valueStart: token.end, valueEnd: token.end });
        }
      }
    } else if (raw.startsWith("-") && raw.length > 1) {
      // A cluster of short flags ends at the first letter that takes an argument.
      for (let c = 1; c < raw.length; c++) {
        const letter = raw[c];
        if (!shortWithArgument.includes(letter)) continue;
        const name = shortToLong[letter] ?? letter;
        if (c + 1 < raw.length) {
          options.push({
            name,
            value: token.text.slice(c + 1),
            line: index,
            valueStart: token.start + c + 1,
            valueEnd: token.end,
          });
        } else if (tokens[t + 1]) {
          const next = tokens[++t];
          options.push({ name, value: next.text, line: index, valueStart: next.start, valueEnd: next.end });
        }
        break;
      }
    }
  }
  return options;
}

/** Whether a line is an `#SBATCH` directive (the magic word must start the line, as in sbatch). */
export function isDirective(line: string): boolean {
  return line.startsWith("#SBATCH");
}

/**
 * Read the `#SBATCH` options of a script the way `sbatch` does: from the top, skipping comments and
 * blank lines, until the first command.
 */
export function readDirectives(lines: TextLine[]): SbatchDirectives {
  const options: SbatchOption[] = [];
  let lastDirectiveLine = -1;
  let firstCommandLine = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].text;
    if (isDirective(text)) {
      options.push(...optionsOfLine(text, i));
      lastDirectiveLine = i;
      continue;
    }
    const trimmed = text.trimStart();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    firstCommandLine = i;
    break;
  }
  return { options, lastDirectiveLine, firstCommandLine };
}

/** The effective (last) occurrence of any of the named options. */
export function lastOption(options: SbatchOption[], ...names: string[]): SbatchOption | undefined {
  for (let i = options.length - 1; i >= 0; i--) if (names.includes(options[i].name)) return options[i];
  return undefined;
}
