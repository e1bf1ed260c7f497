import type { Diagnosis } from "@jobsight/schemas";

const NUMBER = /\d+(?:[.,]\d+)?/g;

function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0].replace(",", ".")));
}

/**
 * Numbers in `prose` that appear nowhere in the diagnosis (summary, claims, evidence, unseen):
 * a language model that mentions one has made something up, and its prose is discarded.
 *
 * @example
 * ```ts
 * unsupportedNumbers("Memory reached 64 GiB.", diagnosis); // [64] when no finding says 64
 * ```
 */
export function unsupportedNumbers(prose: string, d: Diagnosis): number[] {
  const allowed = new Set<number>();
  const texts = [
    d.summary,
    d.jobId,
    ...d.findings.flatMap((f) => [
      f.claim,
      ...f.evidence.flatMap((e) => [e.text, e.line ?? "", e.window?.start ?? "", e.window?.end ?? ""]),
    ]),
    ...d.unseen.flatMap((u) => [u.reason, u.window?.start ?? "", u.window?.end ?? ""]),
  ];
  for (const t of texts) for (const n of numbersIn(t)) allowed.add(n);
  for (const f of d.findings) {
    allowed.add(Math.round(f.confidence * 100));
    for (const e of f.evidence) for (const v of e.values ?? []) allowed.add(v);
  }
  allowed.add(d.findings.length);
  return [...new Set(numbersIn(prose))].filter((n) => !allowed.has(n));
}
