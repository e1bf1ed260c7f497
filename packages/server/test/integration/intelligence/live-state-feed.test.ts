import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endedJobsPage } from "../../../src/data-plane/stores/stored-jobs.js";
import type { HistoryJob } from "../../../src/intelligence/history-job.js";
import { storedJobToHistoryJob } from "../../../src/intelligence/recording/record-to-history.js";
import { ALL_RESOURCES } from "../../../src/intelligence/resources.js";
import { LiveStateFeed } from "../../../src/intelligence/serving/live-state-feed.js";
import { type IntelligenceFixture, importLanlJobs, openIntelligenceFixture } from "./intelligence-fixture.js";

/** Every resource's feature row of each job, under a feed's state. */
function rows(feed: LiveStateFeed, jobs: HistoryJob[]): number[][] {
  return jobs.flatMap((job) => ALL_RESOURCES.map((r) => Array.from(feed.state.features(r, job))));
}

describe("LiveStateFeed", () => {
  let f: IntelligenceFixture;
  beforeAll(async () => {
    f = await openIntelligenceFixture("live-feed", 0);
    // The newer history first: the site's collectors were running before its history was imported.
    await importLanlJobs(f, "live-feed", 400, 400);
  }, 120_000);
  afterAll(async () => f?.dispose());

  it("gives the same features when older history arrives after newer jobs as when it was there first", async () => {
    const feed = new LiveStateFeed(f.fx.storage.pool, { rebuildThreshold: 100_000 });
    await feed.rebuild();
    const before = feed.state.jobs;
    await importLanlJobs(f, "live-feed", 0, 400);
    await feed.refresh();
    expect(feed.state.jobs).toBeGreaterThan(before);
    // A feed that read everything in end order at once: what training replays.
    const fresh = new LiveStateFeed(f.fx.storage.pool);
    await fresh.rebuild();
    expect(feed.state.jobs).toBe(fresh.state.jobs);
    const page = await endedJobsPage(f.fx.storage.pool, "ended", undefined, 50);
    const probes = page.jobs.map(storedJobToHistoryJob);
    expect(rows(feed, probes)).toEqual(rows(fresh, probes));
  }, 120_000);
});
