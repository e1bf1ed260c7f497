import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBucket, type TestBucket } from "../../../../test/services/index.js";
import { LocalObjectStore } from "../../src/data-plane/objects/local-object-store.js";
import { type ObjectStore, readAll } from "../../src/data-plane/objects/object-store.js";
import { S3ObjectStore } from "../../src/data-plane/objects/s3-object-store.js";

function contract(name: string, make: () => Promise<{ store: ObjectStore; dispose: () => Promise<void> }>) {
  describe(`${name} object store`, () => {
    let store: ObjectStore;
    let dispose: () => Promise<void>;
    beforeAll(async () => {
      ({ store, dispose } = await make());
    });
    afterAll(async () => {
      await store?.close();
      await dispose?.();
    });

    it("stores bytes under their sha256, once", async () => {
      const bytes = randomBytes(300_000);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      expect(await store.put(bytes)).toEqual({ sha256, sizeBytes: bytes.length, created: true });
      expect(await store.put(Buffer.from(bytes))).toEqual({
        sha256,
        sizeBytes: bytes.length,
        created: false,
      });
      expect(await store.has(sha256)).toBe(true);
      const back = await readAll((await store.get(sha256))!);
      expect(back.equals(bytes)).toBe(true);
    });

    it("accepts a stream and stores it unchanged", async () => {
      const chunks = [randomBytes(70_000), randomBytes(1), randomBytes(100_000)];
      const { sha256, sizeBytes } = await store.put(Readable.from(chunks));
      expect(sizeBytes).toBe(170_001);
      expect((await readAll((await store.get(sha256))!)).equals(Buffer.concat(chunks))).toBe(true);
    });

    it("says so when an object is missing or a name is not a digest", async () => {
      expect(await store.get("0".repeat(64))).toBeUndefined();
      expect(await store.has("../../etc/passwd")).toBe(false);
      expect(await store.get("../../etc/passwd")).toBeUndefined();
      await expect(store.check()).resolves.toBeUndefined();
    });
  });
}

let bucket: TestBucket;
contract("S3 (s3rver)", async () => {
  bucket = await createTestBucket("objects");
  const store = new S3ObjectStore({
    bucket: bucket.bucket,
    prefix: "jobsight/",
    endpoint: bucket.endpoint,
    region: bucket.region,
    forcePathStyle: true,
    credentials: bucket.credentials,
  });
  return { store, dispose: () => bucket.drop() };
});

describe("S3 layout", () => {
  it("puts objects under the prefix, readable by any S3 client", async () => {
    const b = await createTestBucket("layout");
    const store = new S3ObjectStore({
      bucket: b.bucket,
      prefix: "site-a/",
      endpoint: b.endpoint,
      forcePathStyle: true,
      credentials: b.credentials,
      region: b.region,
    });
    try {
      const { sha256 } = await store.put(Buffer.from("hello"));
      const client = new S3Client(b.s3Config);
      const out = await client.send(
        new GetObjectCommand({ Bucket: b.bucket, Key: `site-a/sha256/${sha256.slice(0, 2)}/${sha256}` }),
      );
      expect(await out.Body?.transformToString()).toBe("hello");
      client.destroy();
    } finally {
      await store.close();
      await b.drop();
    }
  });

  it("reports an unreachable store as unavailable (retryable)", async () => {
    const store = new S3ObjectStore({
      bucket: "nope",
      endpoint: "http://127.0.0.1:9",
      forcePathStyle: true,
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
    });
    await expect(store.check()).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    await store.close();
  });
});

let dir: string;
contract("local folder", async () => {
  dir = await mkdtemp(join(tmpdir(), "jobsight-local-objects-"));
  return { store: new LocalObjectStore({ dir }), dispose: () => rm(dir, { recursive: true, force: true }) };
});

describe("local folder layout", () => {
  it("leaves no temporary files behind", async () => {
    const d = await mkdtemp(join(tmpdir(), "jobsight-local-tmp-"));
    try {
      const store = new LocalObjectStore({ dir: d });
      await store.put(Buffer.from("a"));
      await store.put(Buffer.from("a"));
      expect(await readdir(join(d, "tmp"))).toEqual([]);
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});
