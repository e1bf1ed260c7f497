/**
 * How a number moves between a UsageSample field and an OTLP point value, and which received
 * values a field can take, shared by Jobsight's own mappings and the standard inputs.
 */

export type Kind = "int" | "double" | "signed" | "ratio";

// The sample holds percent, OTLP a ratio (semantic conventions). Rounding to 15 significant
// digits undoes the binary error of the division both ways: 57 -> 0.57 -> 57, 0.57 -> 0.0057.
export const toRatio = (percent: number): number => Number((percent / 100).toPrecision(15));
const toPercent = (ratio: number): number => Number((ratio * 100).toPrecision(15));

/** Turns a received number into a sample field value, or says why it cannot be one. */
export function accept(value: number, kind: Kind): number | string {
  if (!Number.isFinite(value)) return "value is not a finite number";
  if (kind === "signed") return value;
  if (value < 0) return "value is negative";
  if (kind === "int") {
    if (!Number.isInteger(value)) return "value is not an integer";
    if (!Number.isSafeInteger(value)) return "value exceeds 2^53";
  }
  if (kind === "ratio") return toPercent(value);
  return value;
}
