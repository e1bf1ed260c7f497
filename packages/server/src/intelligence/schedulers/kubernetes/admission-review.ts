import { isObject, type JsonPatchOperation } from "./json-patch.js";

/** `kind` of an AdmissionRequest (meta/v1 GroupVersionKind). */
export type GroupVersionKind = { group: string; version: string; kind: string };

/** The parts of an `admission.k8s.io/v1` AdmissionRequest the webhook reads. */
export type AdmissionRequest = {
  uid: string;
  kind: GroupVersionKind;
  namespace?: string;
  name?: string;
  operation: string;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object: Record<string, unknown>;
  dryRun: boolean;
};

/** An `admission.k8s.io/v1` AdmissionResponse. */
export type AdmissionResponse = {
  uid: string;
  allowed: true;
  status?: { code?: number; message: string };
  patchType?: "JSONPatch";
  /** Base64 of the JSON array of operations. */
  patch?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
};

/** The AdmissionReview the API server expects back. */
export type AdmissionReviewResponse = {
  apiVersion: string;
  kind: "AdmissionReview";
  response: AdmissionResponse;
};

/** What a body turned out to be. */
export type ReadReview =
  | { type: "review"; apiVersion: string; request: AdmissionRequest }
  /** An AdmissionReview with a request that cannot be used: admitted, never blocked. */
  | { type: "malformed"; apiVersion: string; uid: string; message: string }
  /** Not an AdmissionReview at all. */
  | { type: "not-a-review"; message: string };

const API_GROUP = "admission.k8s.io/";

/**
 * Read a body as an AdmissionReview (`admission.k8s.io/v1`, the format of the Kubernetes API
 * reference: `request.uid`, `request.kind`, `request.operation`, `request.object`, …).
 *
 * @example
 * ```ts
 * const r = readAdmissionReview(body);
 * if (r.type === "review") console.log(r.request.uid, r.request.kind.kind);
 * ```
 */
export function readAdmissionReview(body: unknown): ReadReview {
  if (!isObject(body) || body.kind !== "AdmissionReview") {
    return {
      type: "not-a-review",
      message: 'the body is not an AdmissionReview (kind must be "AdmissionReview")',
    };
  }
  const apiVersion =
    typeof body.apiVersion === "string" && body.apiVersion.startsWith(API_GROUP)
      ? body.apiVersion
      : undefined;
  if (!apiVersion) {
    return {
      type: "not-a-review",
      message: `apiVersion must be ${API_GROUP}v1, not ${String(body.apiVersion)}`,
    };
  }
  const request = body.request;
  const uid = isObject(request) && typeof request.uid === "string" ? request.uid : "";
  const malformed = (message: string): ReadReview => ({ type: "malformed", apiVersion, uid, message });
  if (!isObject(request)) return malformed("the AdmissionReview has no request");
  if (!uid) return malformed("request.uid is missing");
  const kind = request.kind;
  if (!isObject(kind) || typeof kind.kind !== "string" || typeof kind.version !== "string") {
    return malformed("request.kind is not a GroupVersionKind");
  }
  if (typeof request.operation !== "string") return malformed("request.operation is missing");
  const object = request.object;
  if (request.operation === "CREATE" && !isObject(object))
    return malformed("request.object is not an object");
  const userInfo = isObject(request.userInfo) ? request.userInfo : undefined;
  return {
    type: "review",
    apiVersion,
    request: {
      uid,
      kind: {
        group: typeof kind.group === "string" ? kind.group : "",
        version: kind.version,
        kind: kind.kind,
      },
      namespace: typeof request.namespace === "string" && request.namespace ? request.namespace : undefined,
      name: typeof request.name === "string" && request.name ? request.name : undefined,
      operation: request.operation,
      userInfo: userInfo
        ? { username: typeof userInfo.username === "string" ? userInfo.username : undefined }
        : undefined,
      object: isObject(object) ? object : {},
      dryRun: request.dryRun === true,
    },
  };
}

/** Options of {@link admissionReviewResponse}. */
export type ResponseOptions = {
  patch?: readonly JsonPatchOperation[];
  /** Shown to the person who created the object (kubectl prints warnings). */
  warnings?: string[];
  /** A note in `status.message`, for reviews the webhook could not use. */
  message?: string;
};

/**
 * The answer to a review: always `allowed: true` (the webhook changes requests, it never blocks),
 * the request's `uid` echoed, and a base64 JSONPatch when there is something to change.
 *
 * @example
 * ```ts
 * admissionReviewResponse("admission.k8s.io/v1", uid, { patch: [{ op: "add", path: "/metadata/labels/a", value: "b" }] });
 * ```
 */
export function admissionReviewResponse(
  apiVersion: string,
  uid: string,
  options: ResponseOptions = {},
): AdmissionReviewResponse {
  const response: AdmissionResponse = { uid, allowed: true };
  if (options.patch && options.patch.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = Buffer.from(JSON.stringify(options.patch)).toString("base64");
  }
  if (options.warnings && options.warnings.length > 0) response.warnings = options.warnings;
  if (options.message) response.status = { code: 200, message: options.message };
  return { apiVersion, kind: "AdmissionReview", response };
}
