import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { type CancelResult, clip, type JobCanceller } from "./job-canceller.js";

/** Options of {@link KubernetesPodDeleter}. */
export type KubernetesPodDeleterOptions = {
  /** The API server, e.g. `https://kubernetes.default.svc`. */
  apiUrl: string;
  /** A service account token allowed to delete pods, read at each deletion (it is rotated). */
  tokenFile: string;
  /** The CA bundle the API server's certificate chains to (https only). */
  caFile?: string;
  /** Deadline of one DELETE. @default 10000 */
  timeoutMs?: number;
  /** Seconds the pod is given to stop (DeleteOptions `gracePeriodSeconds`). @default 30 */
  gracePeriodSeconds?: number;
};

// A DNS-1123 label (namespace) and subdomain (pod name), as the API server requires them.
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const POD = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

type Answer = { status: number; body: string };

/**
 * Stops Kubernetes jobs by deleting their pod through the API server (`DELETE
 * /api/v1/namespaces/{namespace}/pods/{name}` with a `DeleteOptions` body), the job id being
 * `namespace/pod-name` as the collector records it. 200 and 202 are success; a `Status` answer's
 * message is what the audit log keeps otherwise.
 *
 * @example
 * ```ts
 * const pods = new KubernetesPodDeleter({ apiUrl: "https://kubernetes.default.svc", tokenFile, caFile });
 * await pods.cancel("ml/train-7f9c"); // { ok: true, detail: "DELETE …/namespaces/ml/pods/train-7f9c: 200" }
 * ```
 */
export class KubernetesPodDeleter implements JobCanceller {
  readonly executor = "kubernetes";

  constructor(private readonly options: KubernetesPodDeleterOptions) {}

  async cancel(jobId: string): Promise<CancelResult> {
    const [namespace, name, ...rest] = jobId.split("/");
    if (rest.length > 0 || !NAMESPACE.test(namespace ?? "") || !POD.test(name ?? ""))
      return { ok: false, detail: `not a Kubernetes pod (namespace/name): ${clip(jobId, 256)}` };
    const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
    const shown = `DELETE ${path}`;
    try {
      const token = (await readFile(this.options.tokenFile, "utf8")).trim();
      const ca = this.options.caFile ? await readFile(this.options.caFile) : undefined;
      const body = JSON.stringify({
        apiVersion: "v1",
        kind: "DeleteOptions",
        gracePeriodSeconds: this.options.gracePeriodSeconds ?? 30,
        propagationPolicy: "Background",
      });
      const answer = await this.#send(path, token, body, ca);
      if (answer.status === 200 || answer.status === 202)
        return { ok: true, detail: `${shown}: ${answer.status}` };
      return { ok: false, detail: clip(`${shown}: ${answer.status} ${statusMessage(answer.body)}`) };
    } catch (error) {
      return {
        ok: false,
        detail: clip(`${shown}: ${error instanceof Error ? error.message : String(error)}`),
      };
    }
  }

  #send(path: string, token: string, body: string, ca: Buffer | undefined): Promise<Answer> {
    const url = new URL(path, this.options.apiUrl);
    const client = url.protocol === "https:" ? https : http;
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json",
            "content-length": Buffer.byteLength(body),
          },
          ...(ca ? { ca } : {}),
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size <= 256 * 1024) chunks.push(chunk);
          });
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
          response.on("error", reject);
        },
      );
      request.on("timeout", () => request.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      request.on("error", reject);
      request.end(body);
    });
  }
}

/** The `message` of a Kubernetes `Status` answer, or the start of the body. */
function statusMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { kind?: string; reason?: string; message?: string };
    if (parsed.kind === "Status") return `${parsed.reason ?? ""}: ${parsed.message ?? ""}`.trim();
  } catch {
    // Not JSON: a proxy's page, kept as it came.
  }
  return body.slice(0, 300);
}
