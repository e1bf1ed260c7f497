import { createReadStream, createWriteStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import type { ImportReport } from "../src/data-plane/import/import-history.js";
import { importSwfFile } from "../src/data-plane/import/import-swf.js";
import type { DataPlaneStorage } from "../src/data-plane/storage/storage.js";

/** Options of {@link importDemoHistory}. */
export type DemoHistoryOptions = {
  storage: DataPlaneStorage;
  file: string;
  cluster: string;
  /** Only the first N job lines (tests); the header is kept. @default every line */
  lines?: number;
  /** Folder for the shortened copy. */
  tmpDir: string;
  onProgress: (text: string) => void;
};

async function firstLines(file: string, lines: number, out: string): Promise<string> {
  const input = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  const kept: string[] = [];
  let jobs = 0;
  for await (const line of input) {
    if (!line.startsWith(";")) jobs++;
    if (jobs > lines) break;
    kept.push(line);
  }
  input.close();
  await pipeline(async function* () {
    yield `${kept.join("\n")}\n`;
  }, createWriteStream(out));
  return out;
}

/** Imports the SWF trace (or its first `lines` jobs) as the site's history, reporting progress. */
export async function importDemoHistory(o: DemoHistoryOptions): Promise<ImportReport> {
  const file = o.lines ? await firstLines(o.file, o.lines, join(o.tmpDir, "history-head.swf")) : o.file;
  let last = 0;
  return importSwfFile(file, {
    storage: o.storage,
    cluster: o.cluster,
    onProgress: (p) => {
      if (Date.now() - last < 2_000) return;
      last = Date.now();
      o.onProgress(`    importing: ${p.imported} jobs (line ${p.line})`);
    },
  });
}
