/** One line of a text file: its content and the end-of-line that followed it ("" for a last line without one). */
export type TextLine = { text: string; eol: "" | "\n" | "\r\n" };

/**
 * Split a text into lines, keeping each line's own end-of-line so that
 * `joinLines(splitLines(x)) === x` for every x (LF, CRLF and mixed files alike).
 */
export function splitLines(text: string): TextLine[] {
  const lines: TextLine[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      lines.push({ text: text.slice(start), eol: "" });
      break;
    }
    const crlf = nl > start && text[nl - 1] === "\r";
    lines.push({ text: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    start = nl + 1;
  }
  return lines;
}

/** The inverse of {@link splitLines}. */
export function joinLines(lines: TextLine[]): string {
  let out = "";
  for (const line of lines) out += line.text + line.eol;
  return out;
}

/** The end-of-line most lines of a text use; `\n` for a text with none. */
export function dominantEol(text: string): "\n" | "\r\n" {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  return crlf > lf ? "\r\n" : "\n";
}
