import type { Diagnosis } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Which job, and in which form the diagnosis is wanted. */
export type DiagnosisQuery = {
  /** The job's cluster, when the job id alone is ambiguous. */
  cluster?: string;
  /** `json` gives a typed {@link Diagnosis}; `markdown` the server's rendering, for a CI comment. */
  format?: "json" | "markdown";
};

/** Why jobs failed or ran badly. */
export class DiagnosesResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Diagnose a job.
   *
   * @example
   * ```ts
   * const d = await client.diagnoses.get("4242", { cluster: "hpc1" });
   * if (d.findings.some((f) => f.severity === "error")) process.exitCode = 1;
   * const markdown = await client.diagnoses.get("4242", { format: "markdown" });
   * ```
   */
  get(
    jobId: string,
    query?: DiagnosisQuery & { format?: "json" },
    options?: RequestOptions,
  ): Promise<Diagnosis>;
  get(
    jobId: string,
    query: DiagnosisQuery & { format: "markdown" },
    options?: RequestOptions,
  ): Promise<string>;
  get(jobId: string, query: DiagnosisQuery = {}, options?: RequestOptions): Promise<Diagnosis | string> {
    return this.transport.request<Diagnosis | string>({
      operationId: "getDiagnosis",
      params: { jobId },
      query: { cluster: query.cluster },
      accept: query.format === "markdown" ? "markdown" : "json",
      options,
    });
  }
}
