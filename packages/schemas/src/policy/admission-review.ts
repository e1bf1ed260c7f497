import { type Static, Type } from "@sinclair/typebox";

/**
 * An `admission.k8s.io/v1` AdmissionReview as the Kubernetes API server sends it to a mutating
 * webhook. Only the envelope is pinned: a review whose `request` the webhook cannot use is still
 * answered (allowed, unchanged), never refused, so the request itself stays open here.
 *
 * @example
 * ```ts
 * const review: AdmissionReviewRequest = {
 *   apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
 *   request: { uid: "705ab4f5", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", object: pod },
 * };
 * ```
 */
export const AdmissionReviewRequest = Type.Object(
  {
    apiVersion: Type.String({
      pattern: "^admission\\.k8s\\.io/",
      description: "admission.k8s.io/v1 (v1beta1 is answered in kind).",
    }),
    kind: Type.Literal("AdmissionReview"),
    request: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "The AdmissionRequest: uid, kind, operation, object, userInfo, dryRun…",
        },
      ),
    ),
  },
  {
    $id: "AdmissionReviewRequest",
    additionalProperties: true,
    description: "An AdmissionReview sent by the Kubernetes API server to a mutating webhook.",
  },
);
export type AdmissionReviewRequest = Static<typeof AdmissionReviewRequest>;

/**
 * The AdmissionReview a mutating webhook answers: always `allowed` (Jobsight changes requests,
 * it never blocks), with a base64 JSONPatch when something changes.
 */
export const AdmissionReviewResponse = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.Literal("AdmissionReview"),
    response: Type.Object(
      {
        uid: Type.String({ description: "The request's uid, echoed." }),
        allowed: Type.Literal(true),
        status: Type.Optional(
          Type.Object(
            { code: Type.Optional(Type.Integer()), message: Type.String() },
            { additionalProperties: false },
          ),
        ),
        patchType: Type.Optional(Type.Literal("JSONPatch")),
        patch: Type.Optional(Type.String({ description: "Base64 of the JSON array of patch operations." })),
        warnings: Type.Optional(Type.Array(Type.String())),
        auditAnnotations: Type.Optional(Type.Record(Type.String(), Type.String())),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: "AdmissionReviewResponse",
    additionalProperties: false,
    description: "The webhook's answer: allowed, maybe with a JSONPatch of the resources.",
  },
);
export type AdmissionReviewResponse = Static<typeof AdmissionReviewResponse>;
