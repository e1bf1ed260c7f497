import type { FindingKind } from "@jobsight/schemas";
import type { DiagnosisInput } from "../input.js";

/** What a scenario's diagnosis must say. */
export interface ScenarioExpectation {
  /** Exactly these finding kinds, in any order; an empty list for a healthy job. */
  readonly findings: readonly FindingKind[];
  /** Exactly these unseen sources (by `source`), in any order. */
  readonly unseen: readonly string[];
  readonly causeDetermined: boolean;
  /** Phrases the claim of a finding kind must contain. */
  readonly claims?: Partial<Record<FindingKind, readonly (string | RegExp)[]>>;
  /** Phrases no claim may contain (claims the data does not support). */
  readonly neverClaims?: readonly (string | RegExp)[];
}

/**
 * A realistic job as the collectors would report it, and what its diagnosis must say. Exported so
 * the same jobs can be sent through the whole path (ingest, storage, diagnosis).
 */
export interface DiagnosisScenario {
  /** Stable kebab-case name. */
  readonly name: string;
  /** What happened to the job, in a sentence. */
  readonly description: string;
  readonly input: DiagnosisInput;
  readonly expect: ScenarioExpectation;
}
