import type { Finding, Unseen } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";

/** What a rule concluded: its findings, and anything it needed and could not see. */
export interface RuleResult {
  readonly findings: readonly Finding[];
  readonly unseen?: readonly Unseen[];
}

/**
 * One diagnosis rule. A rule claims only what its inputs show: when the data it needs is missing
 * it returns no finding (and may name what was missing in `unseen`).
 *
 * @example
 * ```ts
 * const rule: DiagnosisRule = { name: "cancelled", evaluate: (ctx) => ({ findings: [] }) };
 * ```
 */
export interface DiagnosisRule {
  /** Stable name, for tests and logs. */
  readonly name: string;
  /**
   * Evaluates the rule. `prior` holds the findings of the rules that ran before it, for rules
   * (such as job_error) that only speak when nothing else explains the failure.
   */
  evaluate(ctx: RuleContext, prior: readonly Finding[]): RuleResult;
}

/** A result with no finding. */
export const NOTHING: RuleResult = Object.freeze({ findings: [] });
