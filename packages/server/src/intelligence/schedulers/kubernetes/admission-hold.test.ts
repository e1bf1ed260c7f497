import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AlertAction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { SubmissionHold } from "../../alerts/actions/submission-hold.js";
import { HOLD_ANNOTATION, HOLD_GATE } from "./admission-hold.js";
import type { AdmissionReviewResponse } from "./admission-review.js";
import type { JsonPatchOperation } from "./json-patch.js";
import type { Json } from "./test-support/admission-fixtures.js";
import { GiB, MiB, setup } from "./test-support/admission-harness.js";
import { applyJsonPatch } from "./test-support/apply-json-patch.js";

const recorded = (file: string): Json =>
  JSON.parse(readFileSync(join(import.meta.dirname, "test-support", "recorded", file), "utf8"));

const kill = (
  jobId: string,
  requestedMemoryBytes: number,
  requestedCores: number,
  user = "kubernetes-admin",
) => ({
  cluster: "k8s1",
  jobId,
  user,
  endedAt: "2026-11-30T10:00:00.000Z",
  state: "OOMKilled",
  requestedMemoryBytes,
  requestedCores,
});

/** A webhook holding repeat offenders through a real SubmissionHold over in-memory storage. */
function holding(options: { dryRun: boolean; kills: ReturnType<typeof kill>[] }) {
  const actions: Omit<AlertAction, "id">[] = [];
  const hold = new SubmissionHold({
    storage: {
      pool: undefined as never,
      oomKilledJobs: async () => options.kills,
      alertActions: { record: async (a: Omit<AlertAction, "id">) => void actions.push(a) } as never,
    },
    dryRun: options.dryRun,
    policy: async () => ({ name: "default" }),
    clock: () => new Date("2026-12-01T10:00:00Z"),
  });
  const { admission } = setup([], { hold: (spec, cluster, via) => hold.judge(spec, cluster, via) });
  const send = async (review: Json) => {
    const result = await admission.review(review);
    const body = result.body as AdmissionReviewResponse;
    const ops: JsonPatchOperation[] = body.response?.patch
      ? JSON.parse(Buffer.from(body.response.patch, "base64").toString())
      : [];
    return { body, ops, patched: applyJsonPatch(review.request.object, ops) as Json };
  };
  return { admission, actions, send };
}

const etlKills = [
  kill("ml/etl-1", 16 * GiB, 4),
  kill("ml/etl-2", 16 * GiB, 4),
  kill("ml/etl-3", 16 * GiB, 4),
];
// The recorded pod: trainer 64Gi and 8 cores, a 64Mi/50m sidecar, labelled for alice.
const podShape = [64 * GiB + 64 * MiB, 8.05, "alice"] as const;
const trainKills = ["ml/a", "ml/b", "ml/c"].map((id) => kill(id, ...podShape));

describe("the admission webhook holding repeat offenders", () => {
  it("admits a repeat offender's Job suspended, says why and how to confirm, and audits it", async () => {
    const { send, actions, admission } = holding({ dryRun: false, kills: etlKills });
    const { body, patched } = await send(recorded("job-kubectl-apply.json"));
    expect(body.response?.allowed).toBe(true);
    expect(patched.spec.suspend).toBe(true);
    const note = patched.metadata.annotations[HOLD_ANNOTATION];
    expect(note).toContain("3 of your etl-nightly jobs with 16.0 GiB were killed for memory");
    expect(note).toContain(
      `kubectl patch job etl-nightly -n ml --type=merge -p '{"spec":{"suspend":false}}'`,
    );
    expect(body.response?.warnings?.at(-1)).toMatch(/^jobsight held Job etl-nightly: /);
    expect(actions).toMatchObject([
      { kind: "hold-submission", outcome: "done", executor: "admission-webhook", user: "kubernetes-admin" },
    ]);
    expect(actions[0].evidence).toHaveLength(3);
    expect(admission.stats()).toMatchObject({ held: 1 });
  });

  it("gates a bare Pod with a scheduling gate whose removal confirms it", async () => {
    const review = recorded("pod-kubectl-create.json");
    const pod = review.request.object;
    const memory = pod.spec.containers[0].resources.requests.memory;
    expect(memory).toBeDefined();
    const { send } = holding({ dryRun: false, kills: trainKills });
    const { patched, ops } = await send(review);
    if (ops.length === 0) throw new Error(`no hold for a pod requesting ${memory}: fixture shape changed`);
    expect(patched.spec.schedulingGates).toEqual([{ name: HOLD_GATE }]);
    // generateName: no name yet, so the command names the placeholder.
    expect(patched.metadata.annotations[HOLD_ANNOTATION]).toContain(
      `kubectl patch pod <name> -n ml --type=json -p '[{"op":"remove","path":"/spec/schedulingGates/0"}]'`,
    );
    expect(patched.spec.suspend).toBeUndefined();
  });

  it("appends its gate to the gates a Pod already has", async () => {
    const review = recorded("pod-kubectl-create.json");
    review.request.object.spec.schedulingGates = [{ name: "example.com/quota" }];
    const { patched } = await holding({ dryRun: false, kills: trainKills }).send(review);
    expect(patched.spec.schedulingGates).toEqual([{ name: "example.com/quota" }, { name: HOLD_GATE }]);
    expect(patched.metadata.annotations[HOLD_ANNOTATION]).toContain('"path":"/spec/schedulingGates/1"');
  });

  it("only audits in dry-run, holds nothing for others, a controller's pods or a server dry-run", async () => {
    const dry = holding({ dryRun: true, kills: etlKills });
    expect((await dry.send(recorded("job-kubectl-apply.json"))).ops).toEqual([]);
    expect(dry.actions).toMatchObject([{ outcome: "dry-run", executor: "admission-webhook" }]);

    const live = holding({ dryRun: false, kills: etlKills.slice(0, 2) });
    expect((await live.send(recorded("job-kubectl-apply.json"))).ops).toEqual([]);
    expect(live.actions).toEqual([]);

    const pods = holding({ dryRun: false, kills: etlKills });
    expect((await pods.send(recorded("pod-job-controller.json"))).ops).toEqual([]);

    const serverDryRun = recorded("job-kubectl-apply.json");
    serverDryRun.request.dryRun = true;
    const held = holding({ dryRun: false, kills: etlKills });
    expect((await held.send(serverDryRun)).patched.spec.suspend).toBe(true);
    expect(held.actions).toEqual([]);
  });

  it("admits without a hold when judging fails", async () => {
    const { admission } = setup([], {
      hold: async () => {
        throw new Error("database down");
      },
    });
    const result = await admission.review(recorded("job-kubectl-apply.json"));
    expect((result.body as AdmissionReviewResponse).response).toMatchObject({ allowed: true });
    expect((result.body as AdmissionReviewResponse).response?.patch).toBeUndefined();
  });
});
