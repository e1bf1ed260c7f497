import type { Readable } from "node:stream";
import {
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { StorageUnavailableError } from "../../errors.js";
import {
  isSha256,
  type ObjectStore,
  objectKey,
  readAll,
  type StoredObject,
  sha256Hex,
} from "./object-store.js";

/** Options of {@link S3ObjectStore}. */
export type S3ObjectStoreOptions = {
  /** Bucket of the objects (must exist). */
  bucket: string;
  /** Prefix of every key, e.g. `jobsight/`. @default "" */
  prefix?: string;
  /** Endpoint of an S3-compatible store; AWS when absent. @default undefined */
  endpoint?: string;
  /** @default "us-east-1" */
  region?: string;
  /** Path-style URLs (most S3-compatible stores). @default false */
  forcePathStyle?: boolean;
  /** Static credentials; the AWS default chain when absent. @default undefined */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Largest object read into memory to hash it before upload. @default 268435456 (256 MiB) */
  maxObjectBytes?: number;
};

const NOT_FOUND = new Set(["NotFound", "NoSuchKey", "404"]);

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return NOT_FOUND.has(e.name ?? "") || e.$metadata?.httpStatusCode === 404;
}

// Anything but "not found" or a client mistake from S3 means the store is not usable right now.
function unavailable(error: unknown): never {
  throw new StorageUnavailableError(`Object store unavailable: ${(error as Error).message}`, error);
}

/**
 * Objects in S3 (or an S3-compatible store such as MinIO or s3rver) under `prefix + sha256/…`.
 * Checksums are computed only when required: some S3-compatible stores would otherwise store the
 * aws-chunked framing of streamed bodies as the object.
 *
 * @example
 * ```ts
 * const store = new S3ObjectStore({ bucket: "jobsight", prefix: "prod/", endpoint: "http://minio:9000", forcePathStyle: true });
 * ```
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = "s3" as const;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #maxBytes: number;

  constructor(options: S3ObjectStoreOptions) {
    const config: S3ClientConfig = {
      region: options.region ?? "us-east-1",
      forcePathStyle: options.forcePathStyle ?? false,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    };
    if (options.endpoint) config.endpoint = options.endpoint;
    if (options.credentials) config.credentials = options.credentials;
    this.#client = new S3Client(config);
    this.#bucket = options.bucket;
    this.#prefix = options.prefix ?? "";
    this.#maxBytes = options.maxObjectBytes ?? 256 * 1024 * 1024;
  }

  #key(sha256: string): string {
    return `${this.#prefix}${objectKey(sha256)}`;
  }

  async put(body: Uint8Array | Readable): Promise<StoredObject> {
    const bytes = body instanceof Uint8Array ? Buffer.from(body) : await readAll(body, this.#maxBytes);
    const sha256 = sha256Hex(bytes);
    if (await this.has(sha256)) return { sha256, sizeBytes: bytes.length, created: false };
    try {
      // A PUT is atomic in S3: the object appears whole or not at all.
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(sha256),
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: "application/octet-stream",
        }),
      );
    } catch (error) {
      unavailable(error);
    }
    return { sha256, sizeBytes: bytes.length, created: true };
  }

  async get(sha256: string): Promise<Readable | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      const out = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(sha256) }),
      );
      return out.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      unavailable(error);
    }
  }

  async has(sha256: string): Promise<boolean> {
    if (!isSha256(sha256)) return false;
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(sha256) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      unavailable(error);
    }
  }

  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      unavailable(error);
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
