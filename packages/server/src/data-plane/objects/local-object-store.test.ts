import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalObjectStore } from "./local-object-store.js";
import { objectKey, sha256Hex } from "./object-store.js";

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe("local object store: file modes", () => {
  let root: string;
  let umask: number;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "jobsight-objects-"));
    // The widest umask: modes must come from the store, not from the process.
    umask = process.umask(0);
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(root, { recursive: true, force: true });
  });

  it("creates its folders 0700 and its objects 0600 whatever the umask", async () => {
    const dir = join(root, "data", "objects");
    const store = new LocalObjectStore({ dir });
    const { sha256 } = await store.put(Buffer.from("#!/bin/bash\necho secret job\n"));
    const object = join(dir, objectKey(sha256));
    expect(await modeOf(object)).toBe(0o600);
    for (const folder of [
      join(root, "data"),
      dir,
      join(dir, "tmp"),
      join(dir, "sha256"),
      join(object, ".."),
    ]) {
      expect(await modeOf(folder), folder).toBe(0o700);
    }
  });

  it("narrows a folder and objects an older version left readable by everyone", async () => {
    const dir = join(root, "objects");
    const bytes = Buffer.from("model bytes");
    const object = join(dir, objectKey(sha256Hex(bytes)));
    await mkdir(join(object, ".."), { recursive: true, mode: 0o755 });
    await mkdir(join(dir, "tmp"), { mode: 0o755 });
    await writeFile(object, bytes, { mode: 0o644 });
    await chmod(dir, 0o755);
    const store = new LocalObjectStore({ dir });
    await store.check();
    expect(await modeOf(object)).toBe(0o600);
    for (const folder of [dir, join(dir, "tmp"), join(dir, "sha256"), join(object, "..")]) {
      expect(await modeOf(folder), folder).toBe(0o700);
    }
    expect(await store.has(sha256Hex(bytes))).toBe(true);
  });

  it("narrows an old folder at start, before any write or probe", async () => {
    const dir = join(root, "objects");
    await mkdir(dir, { mode: 0o755 });
    await writeFile(join(dir, "stray"), "x", { mode: 0o644 });
    new LocalObjectStore({ dir });
    await expect.poll(() => modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(dir, "stray"))).toBe(0o600);
  });
});
