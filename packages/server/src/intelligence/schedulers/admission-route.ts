import type { FastifyPluginAsync } from "fastify";
import type { KubernetesAdmission } from "./kubernetes-admission.js";

/** Where the API server sends the reviews (the `clientConfig.service.path` of the webhook). */
export const ADMISSION_PATH = "/v1/admission/mutate";

/** Options of {@link admissionRoute}. */
export type AdmissionRouteOptions = {
  /** The webhook that answers the reviews. */
  admission: KubernetesAdmission;
  /**
   * Largest AdmissionReview accepted; a review carries the whole object (and, on updates, the old one).
   * @default 8388608 (8 MiB)
   */
  bodyLimit?: number;
};

/**
 * `POST /v1/admission/mutate`: the Kubernetes API server's mutating admission webhook call. Always
 * answers 200 with an AdmissionReview (allowed, maybe a patch), except 400 for a body that is not
 * an AdmissionReview at all. The API server authenticates with TLS; register it outside the
 * bearer-token scope, or give the webhook a kubeconfig with a token.
 *
 * @example
 * ```ts
 * await app.register(admissionRoute, { admission: new KubernetesAdmission({ cluster: "k8s1", predict, policy }) });
 * ```
 */
export const admissionRoute: FastifyPluginAsync<AdmissionRouteOptions> = async (app, options) => {
  app.post(ADMISSION_PATH, { bodyLimit: options.bodyLimit ?? 8 * 2 ** 20 }, async (request, reply) => {
    const result = await options.admission.review(request.body, request.log);
    return reply.code(result.statusCode).send(result.body);
  });
};
