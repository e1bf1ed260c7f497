import type { OutputStream } from "./cli-io.js";

/** Colour helpers; each returns the text unchanged when colours are off. */
export type Style = {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
};

const code = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/**
 * Colours only on a terminal: off when the stream is not a TTY, when `NO_COLOR` is set (any
 * value, see no-color.org) or `TERM=dumb`; `FORCE_COLOR` (not "0") turns them on anyway.
 */
export function createStyle(stream: OutputStream, env: Record<string, string | undefined>): Style {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const enabled = forced || (stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb");
  const wrap = (f: (t: string) => string) => (text: string) => (enabled ? f(text) : text);
  return {
    enabled,
    bold: wrap(code(1, 22)),
    dim: wrap(code(2, 22)),
    red: wrap(code(31, 39)),
    green: wrap(code(32, 39)),
    yellow: wrap(code(33, 39)),
    cyan: wrap(code(36, 39)),
  };
}

/** The visible width of a text that may hold colour codes. */
export function visibleWidth(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, "").length;
}

/** Colour a unified diff: additions green, removals red, hunk headers cyan. */
export function colourDiff(diff: string, style: Style): string {
  if (!style.enabled) return diff;
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---")) return style.bold(line);
      if (line.startsWith("@@")) return style.cyan(line);
      if (line.startsWith("+")) return style.green(line);
      if (line.startsWith("-")) return style.red(line);
      return line;
    })
    .join("\n");
}
