import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { access, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { makeOwnerOnlyDir, OWNER_ONLY_FILE, restrictTree } from "../storage/owner-only-files.js";
import { isSha256, type ObjectStore, objectKey, type StoredObject } from "./object-store.js";

/** Options of {@link LocalObjectStore}. */
export type LocalObjectStoreOptions = {
  /** Folder of the objects (created 0700 if missing; narrowed to 0700, its files to 0600, if open to others). */
  dir: string;
};

/**
 * Objects in a local folder: written to a temporary file beside their final place, flushed to
 * disk, then renamed (atomic on one file system), so a crash never leaves a partial object under
 * an object's name. Objects are job data: folders are 0700 and files 0600 whatever the umask.
 *
 * @example
 * ```ts
 * const store = new LocalObjectStore({ dir: "/var/lib/jobsight/objects" });
 * const { sha256 } = await store.put(Buffer.from("hello"));
 * ```
 */
export class LocalObjectStore implements ObjectStore {
  readonly kind = "local" as const;
  readonly #dir: string;
  readonly #tmp: string;
  readonly #restricted: Promise<void>;

  constructor(options: LocalObjectStoreOptions) {
    this.#dir = options.dir;
    this.#tmp = join(options.dir, "tmp");
    // At start, not at the first write: a folder left open by an older version closes at once.
    this.#restricted = restrictTree(this.#dir);
    this.#restricted.catch(() => {}); // reported by the next put or check
  }

  async #ready(): Promise<void> {
    await this.#restricted;
    await makeOwnerOnlyDir(this.#tmp);
  }

  #path(sha256: string): string {
    return join(this.#dir, objectKey(sha256));
  }

  async put(body: Uint8Array | Readable): Promise<StoredObject> {
    await this.#ready();
    const tmp = join(this.#tmp, `${Date.now()}-${randomBytes(8).toString("hex")}`);
    const hash = createHash("sha256");
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      const source = body instanceof Readable ? body : Readable.from([Buffer.from(body)]);
      await pipeline(source, tap, createWriteStream(tmp, { flags: "wx", mode: OWNER_ONLY_FILE }));
      const handle = await open(tmp, "r");
      try {
        await handle.chmod(OWNER_ONLY_FILE); // explicit: the umask filters the mode given at creation
        await handle.sync();
      } finally {
        await handle.close();
      }
      const sha256 = hash.digest("hex");
      const path = this.#path(sha256);
      if (await exists(path)) {
        await rm(tmp, { force: true });
        return { sha256, sizeBytes: size, created: false };
      }
      await makeOwnerOnlyDir(dirname(path));
      await rename(tmp, path);
      return { sha256, sizeBytes: size, created: true };
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(sha256: string): Promise<Readable | undefined> {
    if (!isSha256(sha256)) return undefined;
    const path = this.#path(sha256);
    if (!(await exists(path))) return undefined;
    return createReadStream(path);
  }

  async has(sha256: string): Promise<boolean> {
    return isSha256(sha256) && exists(this.#path(sha256));
  }

  async check(): Promise<void> {
    await this.#ready();
    await stat(this.#dir);
  }

  async close(): Promise<void> {}
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
