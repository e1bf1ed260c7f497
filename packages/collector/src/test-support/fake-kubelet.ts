import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

/** The PodResources v1 proto the test kubelet serves (kept with the fixtures). */
export const POD_RESOURCES_PROTO = join(
  import.meta.dirname,
  "..",
  "sources",
  "kubelet",
  "fixtures",
  "podresources-v1.proto",
);

/** What the test kubelet answers to `List`: a `ListPodResourcesResponse` (proto field names) or a gRPC error. */
export type FakeKubeletReply = Record<string, unknown> | { code: grpc.status; details: string };

/** A running test kubelet. */
export type FakeKubelet = {
  socketPath: string;
  /** `List` calls served so far. */
  calls: () => number;
  stop: () => Promise<void>;
};

/**
 * Serve the kubelet's `v1.PodResourcesLister` on a unix socket with a real @grpc/grpc-js server,
 * built by @grpc/proto-loader from the proto file, so requests and replies cross the wire in the
 * kubelet's own encoding. `reply` is read at each call.
 *
 * @example
 * ```ts
 * const kubelet = await startFakeKubelet(join(dir, "kubelet.sock"), () => fixture);
 * // …point the collector's podResourcesSocket at kubelet.socketPath…
 * await kubelet.stop();
 * ```
 */
export async function startFakeKubelet(
  socketPath: string,
  reply: () => FakeKubeletReply,
): Promise<FakeKubelet> {
  const definition = loadSync(POD_RESOURCES_PROTO, { keepCase: true, longs: String, defaults: true });
  const v1 = grpc.loadPackageDefinition(definition).v1 as unknown as {
    PodResourcesLister: { service: grpc.ServiceDefinition };
  };
  let calls = 0;
  const server = new grpc.Server();
  server.addService(v1.PodResourcesLister.service, {
    List: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => {
      calls++;
      const r = reply();
      if ("code" in r && typeof r.code === "number")
        callback({ code: r.code, details: String(r.details) }, null);
      else callback(null, r);
    },
  });
  await new Promise<void>((done, fail) =>
    server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error ? fail(error) : done(),
    ),
  );
  return {
    socketPath,
    calls: () => calls,
    stop: () =>
      new Promise<void>((done) => {
        server.tryShutdown(() => done());
      }),
  };
}
