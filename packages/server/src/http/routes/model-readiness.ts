import type { IntelligenceService } from "../../intelligence/intelligence-service.js";
import type { ModelReadiness } from "./health.js";

/**
 * The model check of `/readyz` for `service`: not ready while its start (policy, active model,
 * history) is still loading or has failed; ready afterwards, with or without a model, since a
 * fresh install has none until its first training, which needs the data it must be ready to take.
 * Without `startup` (a service the caller started) only the served model is reported.
 *
 * @example
 * ```ts
 * const model = modelReadiness(service, service.start());
 * healthRoutes(deps, { model });
 * ```
 */
export function modelReadiness(
  service: Pick<IntelligenceService, "activeVersion">,
  startup?: Promise<void>,
): () => ModelReadiness {
  let state: "loading" | "loaded" | Error = startup ? "loading" : "loaded";
  startup?.then(
    () => {
      state = "loaded";
    },
    (error: unknown) => {
      state = error instanceof Error ? error : new Error(String(error));
    },
  );
  return () => {
    if (state === "loading") return { ready: false, detail: "loading" };
    if (state instanceof Error)
      return { ready: false, detail: `unavailable: ${state.message}`.slice(0, 200) };
    const version = service.activeVersion;
    return { ready: true, detail: version ? `ok: ${version}` : "ok: no model trained yet" };
  };
}
