import type { JobSpec } from "@jobsight/schemas";
import { beforePolicy } from "../policy/before-policy.js";
import type { PredictFunction, PredictionResult } from "./predict-function.js";

/** What {@link servicePredictor} needs of the intelligence service. */
export type RecordingPredictor = {
  predictRecorded(
    spec: JobSpec,
    requestedBy: string,
  ): Promise<{
    answer: { id: string; modelVersion: string; mode: PredictionResult["mode"] };
    resources: PredictionResult["resources"];
    recommendations: { resource: PredictionResult["resources"][number]["resource"]; value?: number }[];
  }>;
};

/**
 * The {@link PredictFunction} of the scheduler integrations over the intelligence service: every
 * job gets a recorded prediction (shadow mode included), and the integration gets the model's
 * recommendations before the policy, which it applies itself so the audit names the rule that
 * limited each value. Without a trained model every resource is insufficient evidence, and the
 * job goes through unchanged.
 *
 * @example
 * ```ts
 * const predict = servicePredictor(service, "svc-k8s1-webhook");
 * new KubernetesAdmission({ cluster: "k8s1", predict, policy: () => service.policy() });
 * ```
 */
export function servicePredictor(service: RecordingPredictor, requestedBy: string): PredictFunction {
  return async (spec) => {
    const recorded = await service.predictRecorded(spec, requestedBy);
    return {
      id: recorded.answer.id,
      modelVersion: recorded.answer.modelVersion,
      mode: recorded.answer.mode,
      resources: beforePolicy(recorded.resources, recorded.recommendations),
    };
  };
}
