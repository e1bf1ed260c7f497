import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { createLogger } from "../../log/logger.js";
import { fakeCommand } from "../../test-support/fake-command.js";
import { MigUuidReader } from "./mig-uuid-reader.js";

const fixtures = join(import.meta.dirname, "fixtures");
const PARENT = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";
const layout = [`${PARENT}/gi2`, `${PARENT}/gi13`];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const runs = (dir: string) => readFileSync(join(dir, "runs"), "utf8").split("\n").filter(Boolean).length;

/** A fake nvidia-smi that counts its runs in a file beside it and answers from the fixtures. */
function smi(working: boolean) {
  const fake = fakeCommand(
    "nvidia-smi",
    [
      'echo run >> "$(dirname "$0")/runs"',
      working ? "" : "exit 9",
      'case "$1" in',
      `  -L) cat '${join(fixtures, "nvidia-smi-list-mig.txt")}' ;;`,
      `  -q) cat '${join(fixtures, "nvidia-smi-query-mig.xml")}' ;;`,
      "esac",
    ].join("\n"),
  );
  cleanups.push(fake.cleanup);
  return fake;
}

it("reads MIG UUIDs once per MIG layout", async () => {
  const fake = smi(true);
  const reader = new MigUuidReader({ command: fake.path });
  const uuids = await reader.forLayout(layout);
  expect(uuids).toEqual(
    new Map([
      [`${PARENT}/gi2`, "MIG-2f0b7c5e-8d1a-5e3b-9c4d-6a7b8c9d0e1f"],
      [`${PARENT}/gi13`, "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"],
    ]),
  );
  // The same instances in another order: no new run.
  expect(await reader.forLayout([...layout].reverse())).toBe(uuids);
  expect(runs(fake.dir)).toBe(2);
});

it("says once that nvidia-smi fails, and tries again only after a while", async () => {
  const lines: string[] = [];
  const fake = smi(false);
  const reader = new MigUuidReader({
    command: fake.path,
    retryMs: 60_000,
    logger: createLogger({ level: "warn", write: (l) => lines.push(l) }),
  });
  expect((await reader.forLayout(layout, 0)).size).toBe(0);
  expect((await reader.forLayout(layout, 1_000)).size).toBe(0);
  expect(runs(fake.dir)).toBe(2);
  expect((await reader.forLayout(layout, 61_000)).size).toBe(0);
  expect(runs(fake.dir)).toBe(4);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("cannot run nvidia-smi -L");
});
