import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, parseSubmission, planSubmissionEdit } from "@jobsight/sdk";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endedJobHistory, neighbourSpecs } from "../../../packages/sdk/test/integration/e2e-job-history.js";
import { checkCall } from "../../../packages/sdk/test/integration/e2e-openapi-contract.js";
import {
  E2E_TOKENS,
  type RealServer,
  startRealServer,
} from "../../../packages/sdk/test/integration/e2e-real-server.js";
import {
  type RecordingProxy,
  startRecordingProxy,
} from "../../../packages/sdk/test/integration/e2e-recording-proxy.js";
import {
  CHROMIUM_TEST_ARGS,
  chromiumForTests,
  freshUserDataDir,
  type UserDataDir,
} from "../../../test/browser/index.js";
import { buildPortal } from "../build.mjs";
import { startPortalServer } from "../serve.mjs";
import { formatValue } from "../src/format.js";
import { samples } from "../src/samples.js";
import type { Prediction } from "../src/types.js";

const executablePath = await chromiumForTests();

describe.skipIf(!executablePath)("the submission portal in headless Chromium", () => {
  let server: RealServer;
  let proxy: RecordingProxy;
  let portal: { url: string; close(): Promise<void> };
  let profile: UserDataDir;
  let context: BrowserContext;
  let page: Page;
  let outdir: string;
  const pageErrors: string[] = [];

  const predictions = () =>
    proxy.calls
      .filter((c) => c.path === "/v1/predictions" && c.status === 200)
      .map((c) => c.response as Prediction);

  async function predictWith(token: string, sample: keyof typeof samples, cluster = "hpc1") {
    await page.goto(`${portal.url}/?cluster=${cluster}&user=alice`);
    await page.waitForSelector("body[data-ready=true]");
    await page.fill("#token", token);
    await page.click(sample === "sbatch" ? "#load-sbatch" : "#load-manifest");
    const before = proxy.calls.length;
    await page.click("#predict");
    await page.waitForFunction(() => document.querySelector("#status")?.textContent !== "Asking Jobsight…");
    await expect.poll(() => proxy.calls.length).toBeGreaterThan(before);
  }

  beforeAll(async () => {
    outdir = await buildPortal(join(tmpdir(), `jobsight-portal-${process.pid}`));
    server = await startRealServer({ prefix: "portal" });
    const { spec } = parseSubmission(samples.sbatch.text, { cluster: "hpc1", user: "alice" });
    await createClient({ baseUrl: server.url, token: E2E_TOKENS.collector }).jobs.ingest(
      // 90 runs each: on 60, the calibration's few examples left alice's memory too uncertain.
      endedJobHistory({ specs: [spec, ...neighbourSpecs()], jobsPerSpec: 90 }),
    );
    await server.service!.refresh();
    expect((await server.service!.train()).accepted).toBe(true);
    proxy = await startRecordingProxy(server.url);
    portal = await startPortalServer({ apiUrl: proxy.url, root: outdir, port: 0 });
    profile = await freshUserDataDir();
    context = await chromium.launchPersistentContext(profile.path, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_TEST_ARGS],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await context?.close();
    await profile?.remove();
    await portal?.close();
    await proxy?.close();
    await server?.close();
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  it("shows the recommendation and the diff of a pasted sbatch script, and applies it", async () => {
    await predictWith(E2E_TOKENS.alice, "sbatch");
    const prediction = predictions().at(-1)!;
    const memory = prediction.resources.find((r) => r.resource === "memory");
    if (memory?.status !== "ok") throw new Error(`no memory recommendation: ${JSON.stringify(prediction)}`);

    const row = page.locator('#recommendation tr[data-resource="memory"]');
    await expect.poll(() => row.getAttribute("data-status")).toBe("ok");
    expect(await row.locator("td.requested").textContent()).toBe("64 GiB");
    expect(await row.locator("td.value").textContent()).toBe(formatValue("memory", memory.value));
    expect(await row.locator("td.evidence").textContent()).toContain(`${memory.evidence.jobs} past jobs`);
    const gpus = page.locator('#recommendation tr[data-resource="gpus"]');
    expect(await gpus.locator("td.evidence").textContent()).toMatch(/^Insufficient evidence: /);

    // The page's edit is the SDK's edit of the same text with the same prediction, byte for byte.
    const expected = planSubmissionEdit(samples.sbatch.text, prediction, undefined, {
      fileName: "train.sbatch",
    });
    expect(expected.edit.diff).toContain("-#SBATCH --mem=64G");
    expect(await page.locator("#diff").textContent()).toBe(expected.edit.diff);
    expect(await page.locator("#diff span.del").count()).toBeGreaterThan(0);

    await page.click("#apply");
    expect(await page.inputValue("#submission")).toBe(expected.edit.text);
    expect(await page.isDisabled("#apply")).toBe(true);
    expect(await page.getAttribute("#download", "download")).toBe("train.sbatch");
    expect(await page.textContent("#status")).toContain("Applied");
  });

  it("says when the evidence is insufficient, and offers no edit", async () => {
    // Nothing has run on k8s2 yet: no user or application there has any history.
    await predictWith(E2E_TOKENS.alice, "manifest", "k8s2");
    const prediction = predictions().at(-1)!;
    expect(prediction.resources.every((r) => r.status === "insufficient_evidence")).toBe(true);
    const statuses = await page
      .locator("#recommendation tbody tr")
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.status));
    expect(statuses).toEqual(prediction.resources.map(() => "insufficient_evidence"));
    expect(await page.textContent("#diff")).toContain("No change to suggest");
    expect(await page.isDisabled("#apply")).toBe(true);
  });

  it("says which rule of the platform team's policy moved a recommendation", async () => {
    const platform = createClient({ baseUrl: server.url, token: E2E_TOKENS.platform });
    const floor = 100 * 2 ** 30;
    await platform.policy.put({ name: "memory-floor", floors: { memory: floor } });
    try {
      await predictWith(E2E_TOKENS.alice, "sbatch");
      const memory = predictions()
        .at(-1)!
        .resources.find((r) => r.resource === "memory");
      if (memory?.status !== "ok") throw new Error("no memory recommendation");
      const moved = memory.adjustments?.find((a) => a.rule === "floor");
      expect(moved?.after).toBe(floor);
      const line = page.locator('#adjustments li[data-resource="memory"][data-rule="floor"]');
      expect(await line.textContent()).toBe(
        `Memory ${formatValue("memory", moved!.before)} → 100 GiB: the policy's floor`,
      );
    } finally {
      await platform.policy.put({ name: "default" });
    }
  });

  it("explains a token the server does not accept", async () => {
    await predictWith("not-a-token-of-this-site", "sbatch");
    expect(await page.textContent("#messages")).toContain("The API token was not accepted");
    expect(await page.isHidden("#result")).toBe(true);
    expect(proxy.calls.at(-1)?.status).toBe(401);
  });

  it("sent only requests of the OpenAPI document, and threw nothing", () => {
    expect(proxy.calls.length).toBeGreaterThanOrEqual(3);
    for (const call of proxy.calls) {
      const result = checkCall(call);
      expect(result.problems, `${call.method} ${call.path}`).toEqual([]);
      expect(result.operationId).toBe("createPrediction");
    }
    expect(pageErrors).toEqual([]);
  });
});
