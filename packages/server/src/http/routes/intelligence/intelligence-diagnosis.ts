import { renderDiagnosisMarkdown } from "../../../intelligence/diagnosis/explain/render-markdown.js";
import type { IntelligenceService } from "../../../intelligence/intelligence-service.js";
import { accessScope, findVisibleJob } from "../access.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";

/**
 * Whether the caller prefers Markdown to JSON: the `Accept` media type with the higher quality
 * wins, a named type beats a wildcard of the same quality, and JSON wins a tie or an absence.
 *
 * @example
 * ```ts
 * prefersMarkdown("text/markdown"); // true
 * prefersMarkdown("application/json, text/markdown;q=0.5"); // false
 * ```
 */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  let markdown = -1;
  let json = -1;
  let wildcard = -1;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const quality = q ? Number(q.slice(2)) : 1;
    if (type === "text/markdown") markdown = Math.max(markdown, quality);
    else if (type === "application/json") json = Math.max(json, quality);
    else if (type === "application/*" || type === "*/*") wildcard = Math.max(wildcard, quality);
  }
  // A named type outranks a wildcard of the same quality; JSON wins a tie with Markdown.
  return markdown > 0 && markdown > json && markdown >= wildcard;
}

/**
 * A job's diagnosis from what storage holds (record, samples, node events around the run, the
 * run-time history of its application, its submission), as JSON or, with `Accept:
 * text/markdown`, Markdown. A researcher sees only their own jobs (as with `getJob`).
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...diagnosisRoutes(deps, service) });
 * ```
 */
export function diagnosisRoutes(deps: RouteDeps, service: IntelligenceService): RouteHandlers {
  return {
    getDiagnosis: async ({
      params,
      query,
      principal,
      request,
      reply,
    }: RouteContext<unknown, { cluster?: string }, { jobId: string }>) => {
      const record = await findVisibleJob(deps.storage, accessScope(principal, query.cluster), params.jobId);
      const diagnosis = await service.diagnose(record);
      if (!prefersMarkdown(request.headers.accept)) return diagnosis;
      reply.type("text/markdown; charset=utf-8");
      return renderDiagnosisMarkdown(diagnosis);
    },
  };
}
