import type { Diagnosis } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "../diagnose.js";
import { diagnosisScenarios } from "../scenarios/all-scenarios.js";
import { renderDiagnosisMarkdown } from "./render-markdown.js";

const of = (name: string) =>
  diagnose(diagnosisScenarios.find((s) => s.name === name)!.input, { now: "2026-12-01T00:00:00Z" });

describe("renderDiagnosisMarkdown", () => {
  it("renders the summary, each finding with its evidence, what was not seen and the agent prompt", () => {
    const d = of("gpu-xid-79-hardware");
    const md = renderDiagnosisMarkdown(d);
    expect(md).toMatch(/^# Diagnosis of job 7342 on hpc1\n/);
    expect(md).toContain("- State: FAILED");
    expect(md).toContain("### 1. GPU hardware or driver fault (error, confidence 90%)");
    expect(md).toContain(
      "NVRM: Xid (PCI:0000:47:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    );
    expect(md).toContain("## Not seen\n\n- **gpu-metrics** (2026-11-07T11:15:30Z to 2026-11-07T11:17:10Z)");
    expect(md).toContain("## Prompt for a coding agent");
    expect(md).not.toContain("## In plain words");
  });

  it("shows each finding's span and each piece of evidence's source, field and stored value", () => {
    const md = renderDiagnosisMarkdown(of("oom-heap-leak"));
    expect(md).toContain(
      "### 1. Out-of-memory kill (error, confidence 95%)\n\nCovers from 2026-11-03T09:00:30Z to",
    );
    expect(md).toContain("- metric from cgroup:memory.stat (anon), `memory.anonBytes` on cn041");
    expect(md).toContain("- scheduler from sacct (State), `outcome.state`:");
    expect(md).toContain("— value: OUT\\_OF\\_MEMORY");
  });

  it("says when the cause was not determined and when nothing was found", () => {
    expect(renderDiagnosisMarkdown({ ...of("exit-1"), causeDetermined: false })).toContain(
      "- Cause: **not determined**",
    );
    const healthy = renderDiagnosisMarkdown(of("healthy-cpu"));
    expect(healthy).toContain("## Findings\n\nNo finding.");
    expect(healthy).toContain("Every source that mattered was seen.");
  });

  it("marks prose as a language model's rephrasing", () => {
    const md = renderDiagnosisMarkdown({ ...of("cancelled"), prose: "Someone cancelled it." });
    expect(md).toContain(
      "## In plain words\n\n_Rephrased by a language model from the findings above; it adds no claims._\n\nSomeone cancelled it.",
    );
  });

  it("keeps job text from breaking the Markdown: fences outlast backticks, markup is escaped", () => {
    const d: Diagnosis = structuredClone(of("exit-1"));
    d.findings[0].claim = "Failed in `load()` with *stars* and <html>.";
    d.findings[0].evidence = [{ kind: "log", source: "stderr", line: "```py\nboom```", text: "a line" }];
    d.agentPrompt = "has ```` four backticks";
    const md = renderDiagnosisMarkdown(d);
    expect(md).toContain("Failed in \\`load()\\` with \\*stars\\* and \\<html\\>.");
    expect(md).toContain("  ````\n  ```py\n  boom```\n  ````");
    expect(md).toContain("`````text\nhas ```` four backticks\n`````");
  });
});
