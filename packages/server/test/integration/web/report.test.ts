import { AccuracyReport, type Diagnosis, Diagnosis as DiagnosisSchema } from "@jobsight/schemas";
import { Value } from "@sinclair/typebox/value";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM_TEST_ARGS,
  chromiumForTests,
  freshUserDataDir,
  type UserDataDir,
} from "../../../../../test/browser/index.js";
import { accuracyReport, accuracyReportWithPoints } from "./accuracy-fixture.js";
import { type BrowserTab, pngSize, probeCharts, screenshotStats, watchErrors } from "./page-probes.js";
import { SHOWCASE } from "./report-fixture.js";
import { type ReportServer, startReportServer, TOKENS } from "./report-server.js";

const executablePath = await chromiumForTests();
const VIEWPORT = { width: 1280, height: 900 };
const BLUE = "#2563eb";
const RED = "#dc2626";

describe.skipIf(!executablePath)("web report in headless Chromium", () => {
  let server: ReportServer;
  let profile: UserDataDir;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let diagnosis: Diagnosis;
  const jobUrl = () => `${server.base}/report/jobs.html?id=${SHOWCASE.jobId}&cluster=${SHOWCASE.cluster}`;

  beforeAll(async () => {
    server = await startReportServer("web_report_browser");
    profile = await freshUserDataDir();
    context = await chromium.launchPersistentContext(profile.path, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_TEST_ARGS],
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      timezoneId: "Europe/Paris",
      locale: "en-GB",
    });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    diagnosis = (await server.get(`/v1/jobs/${SHOWCASE.jobId}/diagnosis?cluster=${SHOWCASE.cluster}`))
      .body as Diagnosis;
    expect(Value.Check(DiagnosisSchema, diagnosis)).toBe(true);
  });

  afterAll(async () => {
    await context?.close();
    await profile?.remove();
    await server?.close();
  });

  afterEach(async () => {
    // Requests still in flight when a test has seen what it checks would be aborted by the close.
    await page?.waitForLoadState("networkidle");
    await page?.close();
    expect(errors.join("\n"), "console errors").toBe("");
  });

  async function open(url: string): Promise<Page> {
    page = await context.newPage();
    errors = watchErrors(page);
    await page.goto(url);
    return page;
  }

  // As if the token had been given earlier in this tab (the first test covers how it gets there).
  async function openWithToken(url: string): Promise<Page> {
    page = await context.newPage();
    errors = watchErrors(page);
    await page.addInitScript(
      (token) => (globalThis as unknown as BrowserTab).sessionStorage.setItem("jobsight.token", token),
      TOKENS.platform,
    );
    await page.goto(url);
    return page;
  }

  it("takes the token from the fragment into sessionStorage and out of the address bar", async () => {
    await open(`${server.base}/report/#token=${TOKENS.platform}`);
    await page.locator("#readiness-verdict").waitFor();
    expect(page.url()).toBe(`${server.base}/report/`);
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as BrowserTab).sessionStorage.getItem("jobsight.token"),
      ),
    ).toBe(TOKENS.platform);
    expect(await page.locator("#readiness-verdict").getAttribute("data-ready")).toBe("false");
    // Leaving the page while its other tables still load would abort their requests (as a user
    // may), which the error watch would count; this test is about the token, not that race.
    await page.waitForLoadState("networkidle");
    await page.locator("a.job-link", { hasText: SHOWCASE.jobId }).click();
    await page.waitForURL(/jobs\.html\?id=7001&cluster=hpc1$/);
    await page.locator("#job-head h1").waitFor();
    expect(await page.locator("#job-head h1").textContent()).toBe(`Job ${SHOWCASE.jobId}`);
  });

  it("asks for a token when there is none, then loads with the one pasted", async () => {
    await open(`${server.base}/report/waste.html`);
    expect(await page.locator("[data-chart] canvas").count()).toBe(0);
    await page.locator("#token-input").fill(TOKENS.platform);
    await page.locator("#token-bar button[type=submit]").click();
    await page.locator("[data-chart=waste-partition] canvas").waitFor();
    expect(await page.locator("#token-bar").textContent()).toContain("API token set");
  });

  it("draws the waste by user, account and partition, and redraws it per resource", async () => {
    await openWithToken(`${server.base}/report/waste.html`);
    await page.locator("[data-chart=waste-partition] canvas").waitFor();
    for (const chart of ["waste-user", "waste-account", "waste-partition"]) {
      const [probe] = await probeCharts(page, `[data-chart=${chart}]`, [BLUE]);
      expect(probe.width, chart).toBeGreaterThan(300);
      expect(probe.height, chart).toBeGreaterThan(150);
      expect(probe.coloured[0], `${chart}: used bars`).toBeGreaterThan(200);
    }
    expect(await page.locator("#waste-user td", { hasText: "bob" }).count()).toBe(1);
    await page.locator("#resource").selectOption("gpus");
    await page.locator("#waste-user td", { hasText: "dave" }).waitFor();
    expect(await page.locator("#waste-user td", { hasText: "bob" }).count()).toBe(0);
    const [probe] = await probeCharts(page, "[data-chart=waste-user]", [BLUE]);
    expect(probe.coloured[0]).toBeGreaterThan(50);
  });

  it("shows the savings had the advice been applied, in amounts only without the site's rates", async () => {
    await openWithToken(`${server.base}/report/waste.html`);
    const savings = page.locator("#savings .savings");
    await savings.waitFor();
    const text = (await savings.textContent()) ?? "";
    expect(text).toMatch(/[\d.,]+ core·h, [\d.,]+ GiB·h of memory, [\d.,]+ GPU·h from \d{4}-\d{2}-\d{2} to/);
    expect(text).toContain("No rates are configured");
    // No rates: no money column either.
    expect(await page.locator("#waste-user th", { hasText: "Unused (" }).count()).toBe(0);
  });

  it("shows idle core time measured from samples, apart from what no sample saw, and the idlest jobs", async () => {
    await openWithToken(`${server.base}/report/waste.html`);
    await page.locator("[data-chart=waste-user] canvas").waitFor();
    expect(await page.locator("#waste-user th", { hasText: "Idle (sampled)" }).count()).toBe(0);
    await page.locator("#resource").selectOption("cores");
    await page.locator("#waste-user th", { hasText: "Idle (sampled)" }).waitFor();
    const alice = page.locator("#waste-user tr", { hasText: "alice" });
    const idle = (await alice.locator("td.idle").textContent()) ?? "";
    // The showcase job ran on fewer cores than it reserved: its idle core-hours are a number.
    expect(idle).toMatch(/^[\d.,]+ core·h$/);
    expect(Number.parseFloat(idle.replace(/,/g, ""))).toBeGreaterThan(0);
    // Jobs with no samples (the waste fixture's) are counted as unsampled, not as idle.
    const bob = page.locator("#waste-user tr", { hasText: "bob" });
    expect(await bob.locator("td.idle").textContent()).toBe("–");
    await page.locator("#waste-user .idle-jobs a.job-link", { hasText: SHOWCASE.jobId }).waitFor();
  });

  it("draws under-prediction and slack per week and the verdict, and says when points are missing", async () => {
    server.accuracy.report = accuracyReport();
    expect(Value.Check(AccuracyReport, server.accuracy.report)).toBe(true);
    await openWithToken(`${server.base}/report/accuracy.html`);
    await page.locator("[data-chart=over-time-walltime] canvas").waitFor();
    for (const chart of ["over-time-memory", "over-time-walltime"]) {
      const [probe] = await probeCharts(page, `[data-chart=${chart}]`, [RED, BLUE]);
      expect(probe.coloured[0], `${chart}: under-prediction line`).toBeGreaterThan(100);
      expect(probe.coloured[1], `${chart}: slack line`).toBeGreaterThan(100);
    }
    expect(await page.locator("#verdict").textContent()).toContain("Not ready yet");
    expect(await page.locator("#verdict li").count()).toBe(2);
    expect(await page.locator("#summary tbody tr").count()).toBe(2);
    expect(await page.locator("#partitions tbody tr").count()).toBe(4);
    expect(await page.locator("#scatter .notice").textContent()).toContain("no per-job points");
    expect(await page.locator("#calibration .notice").textContent()).toContain("no confidence buckets");
  });

  it("draws recommended against actual and the calibration when the report carries them", async () => {
    server.accuracy.report = accuracyReportWithPoints();
    try {
      await openWithToken(`${server.base}/report/accuracy.html`);
      await page.locator("[data-chart=calibration] canvas").waitFor();
      for (const chart of ["scatter-memory", "scatter-walltime", "calibration"]) {
        const [probe] = await probeCharts(page, `[data-chart=${chart}]`, [BLUE]);
        expect(probe.coloured[0], `${chart}: points`).toBeGreaterThan(100);
      }
      const [memory] = await probeCharts(page, "[data-chart=scatter-memory]", [RED]);
      expect(memory.coloured[0], "killed jobs drawn apart").toBeGreaterThan(10);
    } finally {
      server.accuracy.report = accuracyReport();
    }
  });

  it("draws the job's memory with its limit, CPU and GPUs, its events and its diagnosis", async () => {
    await openWithToken(jobUrl());
    await page.locator("[data-chart=gpuMemory] canvas").waitFor();
    const probes = await probeCharts(page, "#charts", [BLUE, RED]);
    expect(probes.map((p) => p.chart)).toEqual(["memory", "cpu", "gpu", "gpuMemory"]);
    for (const probe of probes) {
      expect(probe.width, probe.chart).toBeGreaterThan(300);
      expect(probe.painted, probe.chart).toBeGreaterThan(2000);
    }
    const memory = probes[0];
    expect(memory.coloured[0], "memory in use").toBeGreaterThan(300);
    expect(memory.coloured[1], "memory limit").toBeGreaterThan(300);
    expect(await page.locator("#chart-memory .event-marker.oom_kill").count()).toBe(1);
    expect(await page.locator("#events tbody tr").count()).toBe(1);
    expect(await page.locator("#events").textContent()).toContain("Killed process 48213 (python)");
    expect(await page.locator(".finding").count()).toBe(diagnosis.findings.length);
    expect(await page.locator("#agent-prompt").textContent()).toBe(diagnosis.agentPrompt);
  });

  it("shows how the job's advice changed across model versions, and why", async () => {
    await openWithToken(jobUrl());
    const rows = page.locator("#advice tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain("First advice: 40 GiB, from model m-1 (trained ");
    const second = await rows.nth(1).textContent();
    expect(second).toContain("56 GiB (33.6 GiB – 56 GiB)");
    expect(second).toContain("Raised from 40 GiB to 56 GiB: the model version changed from m-1 (trained ");
    expect(second).toContain("to m-2 (trained ");
    expect(await page.locator("#advice [data-causes=model_version]").count()).toBe(1);
  });

  it("shades a claim's evidence window on the chart it is about when the claim is clicked", async () => {
    const index = diagnosis.findings.findIndex((f) =>
      f.evidence.some((e) => e.window && e.metric?.startsWith("gpus.") && e.window.start !== e.window.end),
    );
    expect(index, "a diagnosis with a GPU claim over a window").toBeGreaterThanOrEqual(0);
    const evidence = diagnosis.findings[index].evidence.filter(
      (e) => e.window && e.metric?.endsWith("utilizationPercent"),
    );
    const window = evidence[0].window as { start: string; end: string };
    await openWithToken(jobUrl());
    await page.locator("[data-chart=gpu] canvas").waitFor();
    expect(await page.locator(".highlight-band").count()).toBe(0);

    await page.locator(`.claim[data-finding="${index}"]`).click();
    const band = page.locator("[data-chart=gpu] .highlight-band");
    await band.waitFor();
    expect(Number(await band.getAttribute("data-start"))).toBe(Date.parse(window.start) / 1000);
    expect(Number(await band.getAttribute("data-end"))).toBe(Date.parse(window.end) / 1000);
    expect(await page.locator("[data-chart=memory] .highlight-band").count()).toBe(0);
    expect(await page.locator(`.claim[data-finding="${index}"]`).getAttribute("aria-pressed")).toBe("true");

    // The band covers the window's share of the plotted time, which runs from the first sample to the last.
    const usage = (await server.get(`/v1/jobs/${SHOWCASE.jobId}/usage?cluster=${SHOWCASE.cluster}`)).body as {
      samples: { time: string }[];
    };
    const first = Date.parse(usage.samples[0].time);
    const last = Date.parse(usage.samples[usage.samples.length - 1].time);
    const over = await page.locator("[data-chart=gpu] .u-over").boundingBox();
    const box = await band.boundingBox();
    if (!over || !box) throw new Error("the band or the plot area is not laid out");
    const left = (Date.parse(window.start) - first) / (last - first);
    const right = (Date.parse(window.end) - first) / (last - first);
    expect((box.x - over.x) / over.width).toBeCloseTo(left, 1);
    expect((box.x + box.width - over.x) / over.width).toBeCloseTo(right, 1);

    await page.locator(`.claim[data-finding="${index}"]`).click();
    expect(await page.locator(".highlight-band").count()).toBe(0);
  });

  it("copies the agent prompt to the clipboard", async () => {
    await openWithToken(jobUrl());
    // The <pre> is in the static page: wait for the prompt itself, drawn with the button's handler.
    await page.locator("#agent-prompt", { hasText: diagnosis.agentPrompt.split("\n")[0] }).waitFor();
    await page.locator("#copy-prompt").click();
    await page.locator("#copy-status", { hasText: "Copied" }).waitFor();
    expect(
      await page.evaluate(() => (globalThis as unknown as BrowserTab).navigator.clipboard.readText()),
    ).toBe(diagnosis.agentPrompt);
  });

  // The README's picture is of the demo's job page: demo/pnpm-demo.test.ts keeps it.
  it("takes a screenshot of the job page that is the right size and not blank", async () => {
    await openWithToken(jobUrl());
    await page.locator("[data-chart=gpuMemory] canvas").waitFor();
    const oom = diagnosis.findings.findIndex((f) => f.kind === "oom_kill");
    const gpu = diagnosis.findings.findIndex((f) => f.kind === "gpus_unused");
    await page.locator(`.claim[data-finding="${gpu >= 0 ? gpu : Math.max(oom, 0)}"]`).click();
    await page.evaluate(() => (globalThis as unknown as BrowserTab).scrollTo(0, 0));
    const png = await page.screenshot({ fullPage: true });
    const size = pngSize(png);
    expect(size.width).toBe(VIEWPORT.width);
    const stats = await screenshotStats(page, png);
    expect(stats.inked, "share of the page that is not background").toBeGreaterThan(0.15);
    expect(stats.colours, "distinct colours").toBeGreaterThan(200);
  });
});
