import type { ObjectStoreConfig } from "../../config/server-config.js";
import { LocalObjectStore } from "./local-object-store.js";
import type { ObjectStore } from "./object-store.js";
import { S3ObjectStore } from "./s3-object-store.js";

/**
 * Builds the object store a configuration asks for.
 *
 * @example
 * ```ts
 * const store = createObjectStore({ kind: "local", dir: "/var/lib/jobsight/objects" });
 * ```
 */
export function createObjectStore(config: ObjectStoreConfig): ObjectStore {
  if (config.kind === "local") return new LocalObjectStore({ dir: config.dir });
  return new S3ObjectStore({
    bucket: config.bucket,
    prefix: config.prefix,
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
  });
}
