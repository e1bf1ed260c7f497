import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { splitLines } from "../text-lines.js";
import { editManifest } from "./edit-manifest.js";
import { parseManifest } from "./parse-manifest.js";

const GiB = 2 ** 30;
const ctx = { cluster: "k8s1", user: "alice" };

const quote = fc.constantFrom(
  (v: string) => v,
  (v: string) => `'${v}'`,
  (v: string) => `"${v}"`,
);
const memory = fc.oneof(
  fc.integer({ min: 1, max: 128 }).map((n) => `${n}Gi`),
  fc.integer({ min: 1, max: 64 }).map((n) => `${n * 512}Mi`),
  fc.integer({ min: 1, max: 64 }).map((n) => `${n * 500}M`),
);
const cpu = fc.oneof(
  fc.integer({ min: 1, max: 64 }).map(String),
  fc.integer({ min: 1, max: 16 }).map((n) => `${n * 250}m`),
);
const gpu = fc.integer({ min: 0, max: 8 }).map(String);

/** A requests or limits map: absent, `{}`, flow or block, with some of the three keys, quoted any way. */
const section = fc.record({
  style: fc.constantFrom("absent", "empty", "flow", "block"),
  memory: fc.option(
    fc.tuple(memory, quote).map(([v, q]) => q(v)),
    { nil: undefined },
  ),
  cpu: fc.option(
    fc.tuple(cpu, quote).map(([v, q]) => q(v)),
    { nil: undefined },
  ),
  gpu: fc.option(
    fc.tuple(gpu, quote).map(([v, q]) => q(v)),
    { nil: undefined },
  ),
  comment: fc.boolean(),
});
type Section = typeof section extends fc.Arbitrary<infer T> ? T : never;

function renderSection(name: string, s: Section, col: number, step: number): string[] {
  const pad = " ".repeat(col);
  const entries = [
    ["memory", s.memory],
    ["cpu", s.cpu],
    ["nvidia.com/gpu", s.gpu],
  ].filter(([, v]) => v !== undefined) as [string, string][];
  if (s.style === "absent") return [];
  if (s.style === "empty" || entries.length === 0) return [`${pad}${name}: {}`];
  if (s.style === "flow") return [`${pad}${name}: {${entries.map(([k, v]) => `${k}: ${v}`).join(", ")}}`];
  return [
    `${pad}${name}:${s.comment ? "  # sized by hand" : ""}`,
    ...entries.map(([k, v]) => `${pad}${" ".repeat(step)}${k}: ${v}`),
  ];
}

const manifestArb = fc
  .record({
    kind: fc.constantFrom("Pod", "Job", "Deployment", "Workflow"),
    step: fc.constantFrom(2, 4),
    indentedSequence: fc.boolean(),
    resources: fc.constantFrom("none", "emptyFlow", "emptyBlock", "maps"),
    requests: section,
    limits: section,
    sidecar: fc.constantFrom("none", "cpu-mem", "gpu"),
    deadline: fc.option(fc.integer({ min: 60, max: 1_000_000 }), { nil: undefined }),
    comments: fc.boolean(),
    eol: fc.constantFrom("\n", "\r\n"),
    finalEol: fc.boolean(),
    otherDoc: fc.constantFrom("none", "before", "after"),
  })
  .map((m) => {
    const s = m.step;
    const lines: string[] = [];
    let col: number;
    if (m.kind === "Workflow") {
      lines.push(
        "apiVersion: argoproj.io/v1alpha1",
        "kind: Workflow",
        "metadata:",
        `${" ".repeat(s)}generateName: w-`,
        "spec:",
      );
      lines.push(
        `${" ".repeat(s)}entrypoint: main`,
        `${" ".repeat(s)}templates:`,
        `${" ".repeat(s)}- name: main`,
      );
      if (m.deadline) lines.push(`${" ".repeat(s + 2)}activeDeadlineSeconds: ${m.deadline}`);
      lines.push(`${" ".repeat(s + 2)}container:`);
      col = s + 2 + s;
      lines.push(`${" ".repeat(col)}image: ghcr.io/lab/train:1`);
    } else {
      lines.push(`kind: ${m.kind}`, "metadata:", `${" ".repeat(s)}name: w`, "spec:");
      let podCol = s;
      if (m.kind !== "Pod") {
        if (m.kind === "Job" && m.deadline)
          lines.push(`${" ".repeat(s)}activeDeadlineSeconds: ${m.deadline}`);
        lines.push(`${" ".repeat(s)}template:`, `${" ".repeat(2 * s)}spec:`);
        podCol = 3 * s;
      }
      if (m.comments) lines.push(`${" ".repeat(podCol)}# the containers`);
      lines.push(`${" ".repeat(podCol)}containers:`);
      const dash = m.indentedSequence ? podCol + s : podCol;
      col = dash + 2;
      lines.push(`${" ".repeat(dash)}- name: main`, `${" ".repeat(col)}image: "ghcr.io/lab/train:1"`);
    }
    if (m.resources === "emptyFlow") lines.push(`${" ".repeat(col)}resources: {}`);
    if (m.resources === "emptyBlock") lines.push(`${" ".repeat(col)}resources:`);
    if (m.resources === "maps") {
      lines.push(`${" ".repeat(col)}resources:`);
      const inner = [
        ...renderSection("requests", m.requests, col + s, s),
        ...renderSection("limits", m.limits, col + s, s),
      ];
      if (inner.length === 0) lines[lines.length - 1] += " {}";
      lines.push(...inner);
    }
    if (m.comments) lines.push(`${" ".repeat(col)}# end of main`);
    if (m.kind !== "Workflow") {
      lines.push(`${" ".repeat(col)}args: ["--epochs", "3"]`);
      if (m.sidecar !== "none") {
        const side =
          m.sidecar === "gpu" ? "{limits: {nvidia.com/gpu: 1}}" : "{requests: {memory: 1Gi, cpu: 500m}}";
        lines.push(
          `${" ".repeat(col - 2)}- name: side`,
          `${" ".repeat(col)}image: busybox`,
          `${" ".repeat(col)}resources: ${side}`,
        );
      }
    }
    const other = ["---", "kind: ConfigMap", "metadata: {name: c}", "data: {memory: 1Gi}"];
    const all =
      m.otherDoc === "before"
        ? [...other.slice(1), "---", ...lines]
        : m.otherDoc === "after"
          ? [...lines, ...other]
          : lines;
    return {
      text: all.join(m.eol) + (m.finalEol ? m.eol : ""),
      sidecar: m.kind === "Workflow" ? "none" : m.sidecar,
    };
  });

const resourceLine = /(memory|cpu|nvidia\.com\/gpu|resources|requests|limits|activeDeadlineSeconds)\s*:/;

/** Lines only in a or only in b, by a longest common subsequence of whole lines (text and end-of-line). */
function changedLines(a: string, b: string): string[] {
  const x = splitLines(a).map((l) => l.text + l.eol);
  const y = splitLines(b).map((l) => l.text + l.eol);
  const dp = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      dp[i][j] = x[i] === y[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      i++;
      j++;
    } else if (j < y.length && (i === x.length || dp[i][j + 1] >= dp[i + 1][j])) out.push(y[j++]);
    else out.push(x[i++]);
  }
  return out;
}

// The documents as data, without what an edit may change.
function dataWithoutResources(text: string): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== "resources" && k !== "activeDeadlineSeconds")
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  return parseAllDocuments(text).map((d) => strip(d.toJS()));
}

describe("editManifest properties", () => {
  it("parse(edit(x)) has the new values, the data is otherwise the same, and only resource lines change", () => {
    const targets = fc.record(
      {
        memory: fc.integer({ min: 2, max: 256 }).map((n) => n * GiB),
        cores: fc.oneof(
          fc.integer({ min: 1, max: 64 }),
          fc.integer({ min: 600, max: 64_000 }).map((m) => m / 1000),
        ),
        gpus: fc.integer({ min: 0, max: 8 }),
        walltime: fc.integer({ min: 1, max: 500_000 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(manifestArb, targets, ({ text, sidecar }, t) => {
        const before = parseManifest(text, ctx);
        const result = editManifest(text, t);
        const after = parseManifest(result.text, ctx);
        expect(after.warnings).toEqual(before.warnings);
        const was = before.spec.requested;
        const now = after.spec.requested;
        expect(now.memoryBytes).toBe(t.memory ?? was.memoryBytes);
        expect(now.cores).toBe(t.cores ?? was.cores);
        const sideGpus = sidecar === "gpu" ? 1 : 0;
        const gpusWritable =
          t.gpus !== undefined && t.gpus >= sideGpus && !(t.gpus === sideGpus && was.gpus === undefined);
        expect(now.gpus).toBe(gpusWritable ? t.gpus : was.gpus);
        const deadline = was.walltimeSeconds;
        expect(now.walltimeSeconds).toBe(
          t.walltime !== undefined && deadline !== undefined ? t.walltime : deadline,
        );
        expect(dataWithoutResources(result.text)).toEqual(dataWithoutResources(text));
        // A last line without an end-of-line gets one when lines are added after it; its bytes stay.
        const last = splitLines(text).at(-1)!;
        for (const line of changedLines(text, result.text)) {
          if (last.eol === "" && line.replace(/\r?\n$/, "") === last.text) continue;
          expect(line).toMatch(resourceLine);
        }
        expect(editManifest(result.text, t).changes).toEqual([]);
      }),
      { numRuns: 250 },
    );
  });
});
