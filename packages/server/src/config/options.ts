import { alertActionOptions } from "./alerts/options-alert-actions.js";
import { alertChannelOptions } from "./alerts/options-alert-channels.js";
import { alertOptions } from "./alerts/options-alerts.js";
import { costOptions } from "./cost/options-cost.js";
import type { OptionSpec } from "./option-spec.js";
import { admissionOptions } from "./options-admission.js";
import { httpOptions } from "./options-http.js";
import { ingestOptions } from "./options-ingest.js";
import { intelligenceOptions } from "./options-intelligence.js";
import { platformOptions } from "./options-platform.js";
import { storageOptions } from "./options-storage.js";

// The one table of options: the environment layer, the serve flags, the parser's types, bounds and
// defaults, and the README table are all made from it, so they cannot drift apart. Cross-field
// rules (TLS needs both files, S3 needs a bucket) stay in the parser and run after the reading.
export const serverOptions = [
  ...httpOptions,
  ...storageOptions,
  ...ingestOptions,
  ...intelligenceOptions,
  ...platformOptions,
  ...admissionOptions,
  ...alertOptions,
  ...alertChannelOptions,
  ...alertActionOptions,
  ...costOptions,
] as const satisfies readonly OptionSpec[];

type Spec = (typeof serverOptions)[number];

/** The path of an option in {@link serverOptions}. */
export type OptionPath = Spec["path"];

type SpecAt<P extends OptionPath> = Extract<Spec, { readonly path: P }>;

type BaseValue<S> = S extends { type: "integer" | "number" }
  ? number
  : S extends { type: "boolean" }
    ? boolean
    : S extends { type: "list"; values: readonly (infer V)[] }
      ? V[]
      : S extends { type: "list" }
        ? string[]
        : S extends { type: "enum"; values: readonly (infer V)[] }
          ? V
          : string;

/** The parsed value of the option at `P`; `undefined` is possible only for options without a default. */
export type OptionValue<P extends OptionPath> =
  SpecAt<P> extends { default: unknown } ? BaseValue<SpecAt<P>> : BaseValue<SpecAt<P>> | undefined;

const byPath = new Map<string, OptionSpec>(serverOptions.map((s) => [s.path, s]));

/**
 * The option at `path`.
 *
 * @example
 * ```ts
 * optionSpec("http.port").env; // "JOBSIGHT_PORT"
 * ```
 */
export function optionSpec(path: OptionPath): OptionSpec {
  return byPath.get(path)!;
}
