import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestBucket,
  createTestDatabase,
  type TestBucket,
  type TestDatabase,
  testServices,
} from "../../../../test/services/index.js";

// Proves the shared integration services are real and isolated: PostgreSQL through `pg`, S3
// through the real @aws-sdk/client-s3 against s3rver.

describe("shared PostgreSQL", () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase("services pg");
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates a table, inserts rows and selects them back", async () => {
    await client.query("CREATE TABLE jobs (id bigint PRIMARY KEY, name text NOT NULL, mem_bytes bigint)");
    const rows = [
      [3, "train", 8n * 1024n ** 3n],
      [1, "prep", 512n * 1024n ** 2n],
      [2, "eval", null],
    ] as const;
    for (const [id, name, mem] of rows) {
      await client.query("INSERT INTO jobs (id, name, mem_bytes) VALUES ($1, $2, $3)", [
        id,
        name,
        mem === null ? null : mem.toString(),
      ]);
    }
    const result = await client.query(
      "SELECT id::int AS id, name, mem_bytes::text AS mem FROM jobs ORDER BY id",
    );
    expect(result.rows).toEqual([
      { id: 1, name: "prep", mem: "536870912" },
      { id: 2, name: "eval", mem: null },
      { id: 3, name: "train", mem: "8589934592" },
    ]);
    expect((await client.query("SELECT current_database() AS name")).rows[0].name).toBe(db.name);
  });

  it("gives every test database its own tables and drops it for good", async () => {
    const other = await createTestDatabase("services pg");
    expect(other.name).not.toBe(db.name);
    const otherClient = new pg.Client({ connectionString: other.url });
    await otherClient.connect();
    try {
      const seen = await otherClient.query("SELECT to_regclass('public.jobs') AS jobs");
      expect(seen.rows[0].jobs).toBeNull();
    } finally {
      await otherClient.end();
    }
    await other.drop();
    await other.drop();

    const admin = new pg.Client({ connectionString: testServices().postgres.url });
    await admin.connect();
    try {
      const names = await admin.query("SELECT datname FROM pg_database WHERE datname = ANY($1)", [
        [db.name, other.name],
      ]);
      expect(names.rows.map((row) => row.datname)).toEqual([db.name]);
    } finally {
      await admin.end();
    }
  });
});

describe("shared S3 (s3rver)", () => {
  let bucket: TestBucket;
  let s3: S3Client;

  beforeAll(async () => {
    bucket = await createTestBucket("services s3");
    s3 = new S3Client(bucket.s3Config);
  });

  afterAll(async () => {
    await bucket?.drop();
    s3?.destroy();
  });

  it("puts a streamed body larger than 1 MiB and gets back the same bytes", async () => {
    // Deterministic, non-repeating content so a shifted or framed body cannot hash the same.
    const size = 1024 * 1024 + 300_001;
    const expected = createHash("sha256");
    let sent = 0;
    let counter = 0;
    const body = new Readable({
      read() {
        if (sent >= size) return void this.push(null);
        const chunk = createHash("sha512").update(String(counter++)).digest();
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        expected.update(piece);
        this.push(piece);
      },
    });
    await s3.send(
      new PutObjectCommand({ Bucket: bucket.bucket, Key: "big/blob.bin", Body: body, ContentLength: size }),
    );

    const got = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: "big/blob.bin" }));
    expect(got.ContentLength).toBe(size);
    const actual = createHash("sha256");
    for await (const chunk of got.Body as Readable) actual.update(chunk);
    expect(actual.digest("hex")).toBe(expected.digest("hex"));
  });

  it("lists objects over several pages with continuation tokens", async () => {
    const keys = Array.from({ length: 7 }, (_, i) => `paged/item-${String(i).padStart(2, "0")}.txt`);
    await Promise.all(
      keys.map((Key) =>
        s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key, Body: `body of ${Key}` })),
      ),
    );

    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: bucket.bucket,
          Prefix: "paged/",
          MaxKeys: 3,
          ContinuationToken: token,
        }),
      );
      pages.push((page.Contents ?? []).map((object) => object.Key ?? ""));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token && pages.length < 10);

    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(keys);
  });

  it("gets and deletes an object", async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket.bucket,
        Key: "small/note.json",
        Body: JSON.stringify({ job: 42 }),
        ContentType: "application/json",
      }),
    );
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: "small/note.json" }));
    expect(got.ContentType).toBe("application/json");
    expect(JSON.parse(await got.Body!.transformToString())).toEqual({ job: 42 });

    await s3.send(new DeleteObjectCommand({ Bucket: bucket.bucket, Key: "small/note.json" }));
    await expect(
      s3.send(new HeadObjectCommand({ Bucket: bucket.bucket, Key: "small/note.json" })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    await expect(
      s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: "small/note.json" })),
    ).rejects.toMatchObject({ name: "NoSuchKey" });
  });

  it("keeps buckets apart", async () => {
    const other = await createTestBucket("services s3");
    try {
      expect(other.bucket).not.toBe(bucket.bucket);
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: other.bucket }));
      expect(listed.KeyCount ?? 0).toBe(0);
    } finally {
      await other.drop();
    }
  });
});
