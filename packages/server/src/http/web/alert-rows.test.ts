import type { Alert, AlertAction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";

type AlertRow = {
  id: string;
  severity: string;
  badge: string;
  rule: string;
  job: { jobId: string };
  since: string;
  held: string;
  projected: string;
};
type ActionRow = {
  id: string;
  at: string;
  what: string;
  outcome: string;
  badge: string;
  warned: string;
  detail: string;
};
// The page's own browser module, loaded as it is served (plain JS, so imported by a computed path).
const modulePath = "./report-assets/alert-rows.js";
const { alertRows, actionRows } = (await import(modulePath)) as {
  alertRows: (alerts: Alert[], now?: string) => AlertRow[];
  actionRows: (actions: AlertAction[]) => ActionRow[];
};

const evidence: Alert["evidence"] = [
  { kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "GPU 0 at most 1%" },
];

function alert(id: string, extra: Partial<Alert>): Alert {
  return {
    id,
    cluster: "hpc1",
    jobId: `job-${id}`,
    user: "alice",
    rule: "gpus-idle",
    severity: "warning",
    state: "firing",
    firstSeen: "2026-12-02T10:00:00Z",
    lastSeen: "2026-12-02T10:30:00Z",
    message: "GPUs idle.",
    evidence,
    ...extra,
  };
}

function action(id: string, extra: Partial<AlertAction>): AlertAction {
  return {
    id,
    at: "2026-12-02T11:15:00Z",
    cluster: "hpc1",
    jobId: "4242",
    user: "alice",
    kind: "cancel-job",
    rule: "gpus-idle",
    outcome: "dry-run",
    executor: "scancel",
    message: "Would cancel job 4242.",
    evidence,
    ...extra,
  };
}

describe("alertRows", () => {
  it("keeps the firing alerts, critical first then most recently seen, with how long each held", () => {
    const rows = alertRows(
      [
        alert("a1", {}),
        alert("a2", { lastSeen: "2026-12-02T10:45:00Z" }),
        alert("a3", { state: "resolved", resolvedAt: "2026-12-02T10:50:00Z" }),
        alert("a4", {
          rule: "memory-near-limit",
          severity: "critical",
          lastSeen: "2026-12-02T10:20:00Z",
          projectedAt: "2026-12-02T10:27:00Z",
        }),
      ],
      "2026-12-02T10:21:00Z",
    );
    expect(rows.map((r) => [r.id, r.badge, r.rule])).toEqual([
      ["a4", "error", "Memory near its limit"],
      ["a2", "warning", "GPUs reserved and idle"],
      ["a1", "warning", "GPUs reserved and idle"],
    ]);
    expect(rows[0].projected).toBe("2026-12-02 10:27:00 UTC (in 6 min 00 s)");
    expect(rows[1]).toMatchObject({ since: "2026-12-02 10:00:00 UTC", held: "45 min 00 s", projected: "–" });
    expect(
      alertRows([alert("a5", { projectedAt: "2026-12-02T10:00:00Z" })], "2026-12-02T11:00:00Z")[0].projected,
    ).toBe("2026-12-02 10:00:00 UTC (passed)");
  });
});

describe("actionRows", () => {
  it("says what was done or would have been done, newest first, how long after the warning, and why it failed", () => {
    const rows = actionRows([
      action("x1", { warnedAt: "2026-12-02T10:45:00Z" }),
      action("x2", { at: "2026-12-02T12:00:00Z", outcome: "failed", detail: "scancel exited 1" }),
      action("x3", { at: "2026-12-02T09:00:00Z", kind: "hold-submission", outcome: "done" }),
    ]);
    expect(rows.map((r) => [r.id, r.what, r.outcome, r.badge])).toEqual([
      ["x2", "Tried to cancel the job", "failed", "error"],
      ["x1", "Would have cancelled the job", "dry run", "info"],
      ["x3", "Held the next submission", "done", "ok"],
    ]);
    expect(rows[1].warned).toBe("2026-12-02 10:45:00 UTC (30 min 00 s before)");
    expect(rows[0]).toMatchObject({ warned: "–", detail: "scancel exited 1", at: "2026-12-02 12:00:00 UTC" });
  });
});
