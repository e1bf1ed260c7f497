import { describe, expect, it } from "vitest";
import type { LiveJob, LiveJobs } from "../../data-plane/queries/live-samples.js";
import type { FiringAlert, FiringKey } from "../../data-plane/stores/alert-store.js";
import { AlertMonitor, type AlertMonitorOptions } from "./alert-monitor.js";
import { gpu, liveJob, series } from "./rules/series-fixture.js";

type Row = FiringKey & { state: "firing" | "resolved" };

/** The storage the monitor uses, in memory: the live jobs it is given and one alert row per job and rule. */
function memoryStorage(live: () => LiveJobs) {
  const rows = new Map<string, Row>();
  let next = 0;
  const storage = {
    // A pool of one: the monitor evaluates without the advisory lock.
    pool: { options: { max: 1 } },
    liveJobs: async () => live(),
    // No past memory kills: repeated-oom holds for none of these jobs.
    oomKilledJobs: async () => [],
    alerts: {
      fire: async (alerts: readonly FiringAlert[], at: Date) => {
        let created = 0;
        for (const a of alerts) {
          const key = `${a.cluster}/${a.jobId}/${a.rule}`;
          const row = rows.get(key);
          if (!row) created++;
          rows.set(key, {
            id: row?.id ?? `id${next++}`,
            cluster: a.cluster,
            jobId: a.jobId,
            rule: a.rule,
            lastSeen: at,
            state: "firing",
          });
        }
        return created;
      },
      firing: async () => [...rows.values()].filter((r) => r.state === "firing"),
      resolve: async (ids: readonly string[]) => {
        let n = 0;
        for (const r of rows.values())
          if (ids.includes(r.id) && r.state === "firing") {
            r.state = "resolved";
            n++;
          }
        return n;
      },
    },
  };
  return { rows, storage: storage as unknown as AlertMonitorOptions["storage"] };
}

const idleGpus = (minutes = 40) => liveJob(series({ minutes, at: () => ({ gpus: [gpu(0, 0)] }) }));
const busyGpus = () => liveJob(series({ minutes: 40, at: () => ({ gpus: [gpu(0, 90)] }) }));
const states = (rows: Map<string, Row>) => [...rows.entries()].map(([k, r]) => `${k} ${r.state}`);

describe("AlertMonitor", () => {
  it("fires once per job and rule, resolves what is judged not to hold, keeps what cannot be judged", async () => {
    let jobs: LiveJob[] = [idleGpus()];
    const { rows, storage } = memoryStorage(() => ({ jobs, truncated: false }));
    const monitor = new AlertMonitor({ storage, now: () => new Date("2026-12-02T10:40:00Z") });
    expect(await monitor.evaluate()).toMatchObject({
      evaluated: true,
      jobs: 1,
      firing: 1,
      created: 1,
      resolved: 0,
    });
    expect(await monitor.evaluate()).toMatchObject({ firing: 1, created: 0 });
    // Readings that no longer reach back over the window: not judged, the alert stays.
    jobs = [liveJob(series({ minutes: 10, at: () => ({ gpus: [gpu(0, 90)] }) }))];
    expect(await monitor.evaluate()).toMatchObject({ firing: 0, resolved: 0 });
    jobs = [busyGpus()];
    expect(await monitor.evaluate()).toMatchObject({ firing: 0, resolved: 1 });
    expect(states(rows)).toEqual(["hpc1/4242/gpus-idle resolved"]);
  });

  it("resolves the alerts of a job no longer running, unless the read was cut short and it was seen lately", async () => {
    let live: LiveJobs = { jobs: [idleGpus()], truncated: false };
    let now = new Date("2026-12-02T10:40:00Z");
    const { rows, storage } = memoryStorage(() => live);
    const monitor = new AlertMonitor({ storage, now: () => now });
    await monitor.evaluate();
    live = { jobs: [], truncated: true };
    expect(await monitor.evaluate()).toMatchObject({ resolved: 0, truncated: true });
    now = new Date("2026-12-02T11:20:00Z");
    expect(await monitor.evaluate()).toMatchObject({ resolved: 0 });
    now = new Date("2026-12-02T11:20:01Z");
    expect(await monitor.evaluate()).toMatchObject({ resolved: 1 });
    live = { jobs: [idleGpus()], truncated: false };
    await monitor.evaluate();
    live = { jobs: [], truncated: false };
    expect(await monitor.evaluate()).toMatchObject({ resolved: 1 });
    expect(states(rows)).toEqual(["hpc1/4242/gpus-idle resolved"]);
  });

  it("never throws into its host: a failing evaluation is logged and counted", async () => {
    const errors: unknown[] = [];
    const { storage } = memoryStorage(() => {
      throw new Error("database down");
    });
    const log = { info() {}, warn() {}, error: (o: Record<string, unknown>) => void errors.push(o) };
    const monitor = new AlertMonitor({ storage, log });
    await expect(monitor.runNow()).resolves.toBeUndefined();
    await expect(monitor.runNow()).resolves.toBeUndefined();
    expect(errors).toEqual([
      expect.objectContaining({ failures: 1 }),
      expect.objectContaining({ failures: 2 }),
    ]);
    await monitor.stop();
  });
});
