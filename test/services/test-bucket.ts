import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { testServices } from "./test-services.js";
import { uniqueName } from "./unique-name.js";

/** A bucket made for one test (or one suite) on the shared S3 server. */
export type TestBucket = {
  bucket: string;
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Ready for `new S3Client(s3Config)`: path-style, checksums only when required. */
  s3Config: S3ClientConfig;
  /** Deletes every object and then the bucket. Safe to call twice. */
  drop: () => Promise<void>;
};

/**
 * Creates a fresh, uniquely named, empty bucket on the shared S3 server.
 *
 * The returned `s3Config` sets `requestChecksumCalculation`/`responseChecksumValidation` to
 * `WHEN_REQUIRED` (otherwise s3rver stores streamed bodies with the aws-chunked framing in them)
 * and `forcePathStyle` (s3rver on 127.0.0.1 has no virtual-host names).
 *
 * @example
 * const { bucket, s3Config } = await createTestBucket("artifacts");
 * const s3 = new S3Client(s3Config);
 * await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "a.txt", Body: "hello" }));
 */
export async function createTestBucket(prefix = "jobsight"): Promise<TestBucket> {
  const { s3 } = testServices();
  const bucket = uniqueName(prefix, { separator: "-", maxLength: 63 });
  const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
  const s3Config: S3ClientConfig = {
    endpoint: s3.endpoint,
    region: s3.region,
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  };
  const client = new S3Client(s3Config);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    credentials,
    s3Config,
    drop: () => dropBucket(s3Config, bucket),
  };
}

async function dropBucket(config: S3ClientConfig, bucket: string): Promise<void> {
  const client = new S3Client(config);
  try {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key }));
      if (keys.length > 0) {
        await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  } catch (error) {
    if ((error as { name?: string }).name !== "NoSuchBucket") throw error;
  } finally {
    client.destroy();
  }
}
