import type { JobSpec } from "@jobsight/schemas";
import { validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  storedSpecs,
  testService,
} from "../intelligence/intelligence-fixture.js";
import { removeInputs, runPlugin, tools } from "./lua/lua-runner.js";
import {
  adviceLines,
  eventually,
  overAskingOptions,
  schedulerApp,
  SCHEDULER_TOKENS as T,
} from "./scheduler-app.js";

// The scheduler routes as the running server serves them: buildApp with an intelligence service
// trained on LANL-CM5 jobs, real PostgreSQL, scheduler tokens bound to a cluster.

const advice = (app: FastifyInstance, token: string | undefined, payload: unknown) =>
  app.inject({
    method: "POST",
    url: "/v1/schedulers/slurm/advice",
    headers: token ? bearer(token) : {},
    payload: payload as object,
  });

const pod = (uid: string) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid,
    kind: { group: "", version: "v1", kind: "Pod" },
    operation: "CREATE",
    namespace: "ml",
    name: "train-1",
    userInfo: { username: "alice" },
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "train-1", namespace: "ml" },
      spec: {
        containers: [
          { name: "main", image: "train:1", resources: { requests: { memory: "64Gi", cpu: "8" } } },
        ],
      },
    },
  },
});

describe("scheduler routes served by buildApp over the intelligence service", () => {
  let f: IntelligenceFixture;
  let live: IntelligenceService;
  let shadow: IntelligenceService;
  let liveApp: FastifyInstance;
  let shadowApp: FastifyInstance;
  let specs: JobSpec[];

  beforeAll(async () => {
    f = await openIntelligenceFixture("sched-routes", 2500);
    live = testService(f, { mode: "live" });
    await live.start();
    await live.train({ trigger: "test" });
    shadow = testService(f, { mode: "shadow" });
    await shadow.start();
    liveApp = await schedulerApp(f, live);
    shadowApp = await schedulerApp(f, shadow);
    specs = await storedSpecs(f, 60);
  });

  afterAll(async () => {
    await liveApp?.close();
    await shadowApp?.close();
    await live?.stop();
    await shadow?.stop();
    await f?.dispose();
  });

  it("refuses both routes without a scheduler token bound to a cluster", async () => {
    const body = { user: "1", options: { time: "60" } };
    expect((await advice(liveApp, undefined, body)).statusCode).toBe(401);
    expect((await advice(liveApp, "garbage-token", body)).statusCode).toBe(401);
    expect((await advice(liveApp, T.researcher, body)).statusCode).toBe(403);
    expect((await advice(liveApp, T.platform, body)).statusCode).toBe(403);
    const refused = await advice(liveApp, T.platform, body);
    expect(refused.json().code).toBe("FORBIDDEN");
    // A scheduler token without a cluster cannot exist: the configuration refuses it.
    expect(() =>
      parseServerConfig({ auth: { tokens: [{ token: "scheduler-nowhere-0000001", role: "scheduler" }] } }),
    ).toThrow(/auth.tokens\[0\].cluster: is required for role scheduler/);
    for (const headers of [{}, bearer(T.platform), bearer(T.researcher)]) {
      const res = await liveApp.inject({
        method: "POST",
        url: "/v1/admission/mutate",
        headers,
        payload: pod("u-0"),
      });
      expect([401, 403]).toContain(res.statusCode);
      expect(validators.ApiError.validate(res.json()).ok).toBe(true);
    }
  });

  it("acts only for the token's own cluster", async () => {
    const res = await advice(liveApp, T.scheduler, { cluster: "hpc1", user: "1", options: { time: "60" } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: "FORBIDDEN", errors: [{ path: "/cluster" }] });
  });

  it("answers a SLURM submission with the options to set under the policy and records the change", async () => {
    let found: { spec: JobSpec; answer: Record<string, string> } | undefined;
    for (const spec of specs) {
      const res = await advice(liveApp, T.scheduler, { user: spec.user, options: overAskingOptions(spec) });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.body.startsWith("jobsight-advice 1\n")).toBe(true);
      const answer = adviceLines(res.body);
      if (answer.status === "changed" && answer["set.mem"] !== undefined) {
        found = { spec, answer };
        break;
      }
      expect(["unchanged", "changed"]).toContain(answer.status);
    }
    expect(found, "no LANL job got a memory change").toBeDefined();
    const { spec, answer } = found!;
    expect(answer["set.mem"]).toMatch(/^\d+$/);
    expect(Number(answer["set.mem"])).not.toBe(Number(overAskingOptions(spec).mem));
    expect(answer.message).toContain(`model ${live.activeVersion}`);

    const page = await eventually(
      async () =>
        (
          await liveApp.inject({
            method: "GET",
            url: `/v1/policy/audit?cluster=lanl&user=${spec.user}`,
            headers: bearer(T.platform),
          })
        ).json(),
      (p) => p.items?.some((r: { actor: string }) => r.actor === "slurm-cli-filter"),
    );
    expect(validators.PolicyAuditPage?.validate?.(page).ok ?? true).toBe(true);
    const record = page.items.find((r: { resource: string }) => r.resource === "memory");
    expect(record).toMatchObject({
      cluster: "lanl",
      actor: "slurm-cli-filter",
      user: spec.user,
      resource: "memory",
      after: Number(answer["set.mem"]) * 2 ** 20,
      modelVersion: live.activeVersion,
      policy: "default",
      mode: "live",
    });
    expect(record.before).toBe(Number(overAskingOptions(spec).mem) * 2 ** 20);
    expect(record.predictionId).toEqual(expect.any(String));
    const prediction = await live.getPrediction(record.predictionId);
    expect(prediction?.modelVersion).toBe(live.activeVersion);
  });

  it("applies the stored policy and names the rule that limited a value", async () => {
    const put = await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(T.platform),
      payload: { name: "gentle", maxDecrease: { memory: 0.1 } },
    });
    expect(put.statusCode).toBe(200);
    let limited: Record<string, string> | undefined;
    let spec: JobSpec | undefined;
    // When the limited call was made: its audit is written after it answered, and the earlier
    // calls' may be written (or visible) first.
    let since = 0;
    for (const s of specs) {
      since = Date.now();
      const answer = adviceLines(
        (await advice(liveApp, T.scheduler, { user: s.user, options: overAskingOptions(s) })).body,
      );
      // A lowered request is what maxDecrease limits (a raised one is not a decrease); one lowered by
      // the whole 10% is one the rule held back (the model alone may lower it by less).
      const ask = Number(overAskingOptions(s).mem);
      const set = Number(answer["set.mem"]);
      if (answer.status === "changed" && set < ask && set <= Math.ceil(ask * 0.9)) {
        limited = answer;
        spec = s;
        break;
      }
    }
    expect(limited).toBeDefined();
    const asked = Number(overAskingOptions(spec!).mem);
    expect(Number(limited!["set.mem"])).toBeGreaterThanOrEqual(Math.floor(asked * 0.9));
    expect(Number(limited!["set.mem"])).toBeLessThan(asked);
    expect(limited!.message).toContain("policy gentle");
    // The memory record of that very call: the value it set (MiB in the advice, bytes in the audit).
    // An earlier call's record can be written after `since`, so time alone does not pick it out.
    const ofLimited = (r: {
      policy: string;
      resource: string;
      user: string;
      recordedAt: string;
      after: number;
    }) =>
      r.policy === "gentle" &&
      r.resource === "memory" &&
      r.user === spec!.user &&
      Date.parse(r.recordedAt) >= since &&
      r.after === Number(limited!["set.mem"]) * 2 ** 20;
    const page = await eventually(
      async () =>
        (
          await liveApp.inject({
            method: "GET",
            url: "/v1/policy/audit?cluster=lanl",
            headers: bearer(T.platform),
          })
        ).json(),
      (p) => p.items?.some(ofLimited),
    );
    // The memory record of the call just limited (an advice records one per resource; earlier
    // calls under this policy, before `since`, may have changed nothing).
    const record = page.items.find(ofLimited);
    expect(record.limitedBy).toBe("max_decrease");
    await liveApp.inject({
      method: "PUT",
      url: "/v1/policy",
      headers: bearer(T.platform),
      payload: { name: "default" },
    });
  });

  it("in shadow mode records what would change and tells the filter to change nothing", async () => {
    let shadowed = 0;
    for (const spec of specs.slice(0, 20)) {
      const res = await advice(shadowApp, T.scheduler, { user: spec.user, options: overAskingOptions(spec) });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toMatch(/^set\./m);
      if (adviceLines(res.body).status === "shadow") shadowed++;
    }
    expect(shadowed).toBeGreaterThan(0);
    const page = await eventually(
      async () =>
        (
          await shadowApp.inject({
            method: "GET",
            url: "/v1/policy/audit?cluster=lanl",
            headers: bearer(T.platform),
          })
        ).json(),
      (p) => p.items?.some((r: { mode: string }) => r.mode === "shadow"),
    );
    expect(page.items.filter((r: { mode: string }) => r.mode === "shadow").length).toBeGreaterThan(0);
  });

  it("answers every well-formed AdmissionReview with 200 allowed, and anything else with 400", async () => {
    const before = await f.fx.storage.pool.query(
      "SELECT count(*)::int AS n FROM predictions WHERE cluster = 'lanl' AND spec::json->>'scheduler' = 'kubernetes'",
    );
    const res = await liveApp.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      headers: bearer(T.scheduler),
      payload: pod("uid-1"),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "uid-1", allowed: true },
    });
    await live.flush();
    const after = await f.fx.storage.pool.query(
      "SELECT count(*)::int AS n FROM predictions WHERE cluster = 'lanl' AND spec::json->>'scheduler' = 'kubernetes'",
    );
    expect(after.rows[0].n).toBe(before.rows[0].n + 1);

    const malformed = await liveApp.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      headers: bearer(T.scheduler),
      payload: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { kind: "Pod" } },
    });
    expect(malformed.statusCode).toBe(200);
    expect(malformed.json().response).toMatchObject({ allowed: true });

    for (const payload of [{ kind: "Pod" }, { apiVersion: "v1", kind: "AdmissionReview" }, [1]]) {
      const bad = await liveApp.inject({
        method: "POST",
        url: "/v1/admission/mutate",
        headers: bearer(T.scheduler),
        payload,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().code).toBe("VALIDATION_FAILED");
    }
  });

  it("lets a cluster-bound platform token read only its own cluster's audit", async () => {
    const own = await liveApp.inject({
      method: "GET",
      url: "/v1/policy/audit",
      headers: bearer(T.platformHpc2),
    });
    expect(own.statusCode).toBe(200);
    expect(own.json().items).toEqual([]);
    const other = await liveApp.inject({
      method: "GET",
      url: "/v1/policy/audit?cluster=lanl",
      headers: bearer(T.platformHpc2),
    });
    expect(other.statusCode).toBe(403);
    const scheduler = await liveApp.inject({
      method: "GET",
      url: "/v1/policy/audit",
      headers: bearer(T.scheduler),
    });
    expect(scheduler.statusCode).toBe(403);
  });

  it("simulates a policy on the predictions recorded over the last week", async () => {
    await live.flush();
    const res = await liveApp.inject({
      method: "POST",
      url: "/v1/policy/simulate",
      headers: bearer(T.platform),
      payload: { policy: { name: "strict", leaveAlone: ["memory"] }, cluster: "lanl" },
    });
    expect(res.statusCode).toBe(200);
    const sim = res.json();
    expect(sim.policy).toBe("strict");
    expect(sim.jobs).toBeGreaterThan(0);
    const memory = sim.resources.find((r: { resource: string }) => r.resource === "memory");
    expect(memory.changed).toBe(0);
    expect(memory.held.leave_alone).toBeGreaterThan(0);

    const loose = await liveApp.inject({
      method: "POST",
      url: "/v1/policy/simulate",
      headers: bearer(T.platform),
      payload: { policy: { name: "loose" }, cluster: "lanl" },
    });
    expect(
      loose.json().resources.find((r: { resource: string }) => r.resource === "memory").changed,
    ).toBeGreaterThan(0);

    const crossed = await liveApp.inject({
      method: "POST",
      url: "/v1/policy/simulate",
      headers: bearer(T.platform),
      payload: { policy: { name: "x", floors: { memory: 8 }, caps: { memory: 4 } } },
    });
    expect(crossed.statusCode).toBe(400);
    expect(crossed.json().errors).toEqual([expect.objectContaining({ path: "/policy/floors/memory" })]);
  });
  it.skipIf(!tools.lua)(
    "the real cli_filter.lua, through curl, gets its options from the trained model and the audit records them",
    async () => {
      const url = await liveApp.listen({ host: "127.0.0.1", port: 0 });
      try {
        let run: Awaited<ReturnType<typeof runPlugin>> | undefined;
        let spec: JobSpec | undefined;
        for (const s of specs) {
          const options = overAskingOptions(s);
          const attempt = await runPlugin(
            "cli_filter",
            {
              options: {
                type: "sbatch",
                mem: options.mem,
                time: options.time,
                ntasks: options.ntasks,
                ...(s.partition ? { partition: s.partition } : {}),
                ...(s.account ? { account: s.account } : {}),
                argv: [s.executable ?? "job.sh"],
              },
              pack_offset: 0,
            },
            { JOBSIGHT_URL: url, USER: s.user, JOBSIGHT_TOKEN: T.scheduler, JOBSIGHT_CLUSTER: "lanl" },
          );
          expect(attempt.rc).toBe("0");
          if (attempt.sets.mem) {
            run = attempt;
            spec = s;
            break;
          }
        }
        expect(run, "no LANL job had its --mem set by the filter").toBeDefined();
        expect(run!.sets.mem).toMatch(/^\d+$/);
        expect(run!.info.join("\n")).toMatch(new RegExp(`--mem .*model ${live.activeVersion}`));
        const page = await eventually(
          async () =>
            (
              await liveApp.inject({
                method: "GET",
                url: `/v1/policy/audit?cluster=lanl&user=${spec!.user}`,
                headers: bearer(T.platform),
              })
            ).json(),
          (p) =>
            p.items?.some(
              (r: { resource: string; after: number }) =>
                r.resource === "memory" && r.after === Number(run!.sets.mem) * 2 ** 20,
            ),
        );
        expect(
          page.items.some(
            (r: { resource: string; after: number }) =>
              r.resource === "memory" && r.after === Number(run!.sets.mem) * 2 ** 20,
          ),
        ).toBe(true);
      } finally {
        removeInputs();
      }
    },
  );
});
