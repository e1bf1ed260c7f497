import {
  type ContainerOnlySample,
  type DecodeObservationsOptions,
  decodeExportMetricsRequestJson,
  decodeObservations,
  decodeObservationsProtobuf,
  describeRejections,
  type HostOnlySample,
  type OtlpHttpEncoding,
  type RejectedSample,
  type SkippedPoints,
} from "@jobsight/otel-bridge";
import {
  type PreparedSamples,
  type PrepareSamplesOptions,
  prepareSamples,
} from "../copy/prepared-samples.js";
import { dropLoneSurrogatePoints, mergeRejections } from "./lone-surrogate-points.js";

/** One OTLP export decoded, mapped to samples and encoded for storage. */
export type DecodedBatch = {
  prepared: PreparedSamples;
  /**
   * Data points rejected, and why in one sentence (empty when none); `samples` names the samples
   * those points belong to, where they name one (see `DecodedObservations.rejectedSamples`).
   */
  rejected: { count: number; description: string; samples: RejectedSample[] };
  /** Points set aside without an error: unknown metrics, standard inputs that name no job. */
  skipped: SkippedPoints;
  /**
   * With the `hostOnly` option: samples of node-wide points that name only their node, not yet
   * prepared, for the ingest to give the job that had the node alone (`host-attribution.ts`).
   */
  hostOnly: HostOnlySample[];
  /**
   * With the `containerOnly` option: samples of container and process points that name only their
   * `container.id`, not yet prepared, for the ingest to give the job whose record lists the
   * container (`container-attribution.ts`).
   */
  containerOnly: ContainerOnlySample[];
  /**
   * Gives the COPY text's buffer back to where it came from, for a later batch: call it once the
   * batch is stored (committed), never before, and not after a failed write (the connection may
   * still hold it). Absent when the buffer is the batch's own.
   */
  release?: () => void;
};

/**
 * Decodes an OTLP export (protobuf or JSON), maps its points to samples for the sender's
 * cluster, and encodes them for COPY (for the sample store's flavour, `prepare`): the whole
 * CPU-bound half of an export, in one function, so it can run on the calling thread or in a
 * decode worker alike.
 *
 * @throws {OtlpDecodeError} for a body that does not decode.
 * @example
 * ```ts
 * const { prepared, rejected } = decodeBatch(body, "protobuf", { cluster: "hpc1" }, { flavour: "plain" });
 * await storage.samples.insertPrepared(prepared);
 * ```
 */
export function decodeBatch(
  body: Uint8Array,
  encoding: OtlpHttpEncoding,
  options: DecodeObservationsOptions,
  prepare: PrepareSamplesOptions = {},
): DecodedBatch {
  const { samples, rejected, rejectedSamples, skipped, hostOnly, containerOnly } =
    encoding === "json" ? decodeJson(body, options) : decodeObservationsProtobuf(body, options);
  return {
    prepared: prepareSamples(samples, prepare),
    rejected: { count: rejected.count, description: describeRejections(rejected), samples: rejectedSamples },
    skipped,
    hostOnly: hostOnly ?? [],
    containerOnly: containerOnly ?? [],
  };
}

function decodeJson(body: Uint8Array, options: DecodeObservationsOptions) {
  const request = decodeExportMetricsRequestJson(body);
  const dropped = dropLoneSurrogatePoints(request, body);
  const decoded = decodeObservations(request, options);
  // Points with a lone surrogate are counted, not named: only gRPC (protobuf) answers name samples.
  return {
    samples: decoded.samples,
    rejected: mergeRejections(decoded.rejected, dropped),
    rejectedSamples: decoded.rejectedSamples,
    skipped: decoded.skipped,
    hostOnly: decoded.hostOnly,
    containerOnly: decoded.containerOnly,
  };
}
