import type { ObjectStoreConfig } from "../../config/server-config.js";
import { createObjectStore } from "../../data-plane/objects/create-object-store.js";
import type { ObjectStore } from "../../data-plane/objects/object-store.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Content-addressed artifact bytes: S3 or a local folder. */
    objectStore: ObjectStore;
  }
}

/** Options of {@link objectStorePlugin}: a configuration, or a store made by the caller. */
export type ObjectStorePluginOptions = { config: ObjectStoreConfig } | { store: ObjectStore };

/**
 * `app.objectStore`: S3 via @aws-sdk/client-s3 or a local folder (the default), closed with the app.
 *
 * @example
 * ```ts
 * await app.register(objectStorePlugin, { config: { kind: "local", dir: ".jobsight/objects" } });
 * ```
 */
export const objectStorePlugin = globalPlugin<ObjectStorePluginOptions>(
  "jobsight-object-store",
  async (app, options) => {
    const owned = "config" in options;
    const store = owned ? createObjectStore(options.config) : options.store;
    app.decorate("objectStore", store);
    if (owned) app.addHook("onClose", async () => store.close());
  },
);
