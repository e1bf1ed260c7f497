import { statSync } from "node:fs";
import { resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { KubeletError } from "../../errors.js";
import {
  decodeListPodResourcesResponse,
  POD_RESOURCES_LIST_PATH,
  type PodResources,
} from "./pod-resources-proto.js";

/** Where the kubelet serves its PodResources API. */
export const DEFAULT_POD_RESOURCES_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";

// The kubelet's own limit for PodResources replies (podresources.DefaultMaxMsgSize).
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** Options of {@link PodResourcesClient}. */
export type PodResourcesClientOptions = {
  /** The kubelet's PodResources unix socket. @default "/var/lib/kubelet/pod-resources/kubelet.sock" */
  socketPath?: string;
  /** Time limit of one `List` call (the kubelet answers from memory). @default 2000 */
  timeoutMs?: number;
};

/**
 * A client of the kubelet's PodResources API (`v1.PodResourcesLister/List` over gRPC on a unix
 * socket): which devices (GPUs and others) the kubelet gave each container of each pod on this
 * node. One channel is kept open between calls. `list()` rejects with a {@link KubeletError} when
 * the socket is missing, the call fails or times out, or the reply cannot be decoded.
 *
 * @example
 * ```ts
 * const kubelet = new PodResourcesClient();
 * for (const pod of await kubelet.list()) console.log(pod.namespace, pod.name, pod.containers);
 * kubelet.close();
 * ```
 */
export class PodResourcesClient {
  readonly socketPath: string;
  private readonly timeoutMs: number;
  private client: grpc.Client | undefined;

  constructor(options: PodResourcesClientOptions = {}) {
    this.socketPath = resolve(options.socketPath ?? DEFAULT_POD_RESOURCES_SOCKET);
    this.timeoutMs = options.timeoutMs ?? 2000;
  }

  /** Every pod the kubelet runs here, with its containers' devices. */
  list(): Promise<PodResources[]> {
    // Checked first: grpc-js would only say UNAVAILABLE, and keep reconnecting to nothing.
    if (!isSocket(this.socketPath)) {
      this.close();
      return Promise.reject(new KubeletError(`no kubelet PodResources socket at ${this.socketPath}`));
    }
    this.client ??= new grpc.Client(`unix:${this.socketPath}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": MAX_REPLY_BYTES,
    });
    const client = this.client;
    return new Promise((done, fail) => {
      client.makeUnaryRequest(
        POD_RESOURCES_LIST_PATH,
        () => Buffer.alloc(0),
        (bytes: Buffer) => bytes,
        {},
        new grpc.Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (error, bytes) => {
          if (error || !bytes) {
            const what = error ? `${grpc.status[error.code] ?? error.code}: ${error.details}` : "empty reply";
            fail(new KubeletError(`kubelet PodResources List failed (${what})`, { cause: error }));
            return;
          }
          try {
            done(decodeListPodResourcesResponse(bytes));
          } catch (cause) {
            fail(
              new KubeletError("kubelet PodResources List answered what is not a ListPodResourcesResponse", {
                cause,
              }),
            );
          }
        },
      );
    });
  }

  /** Close the channel; a later `list()` opens a new one. */
  close(): void {
    this.client?.close();
    this.client = undefined;
  }
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}
