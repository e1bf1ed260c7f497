import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CollectorHealth, CollectorProcess } from "./collector-process.js";
import { describeEpisode, formatOffset, planRound } from "./fault-plan.js";
import { CLUSTER, FaultStand, isFullDiskRound } from "./fault-stand.js";
import { faultSeed, seededRandom } from "./seeded-random.js";
import { checkJobs, checkSamples, problemsOf, readStored } from "./stored-ledger.js";

// Issue #28, item 4, "Faults, repeated". Round after round, at seeded random times, the server,
// PostgreSQL and both collectors are killed with SIGKILL and started again, the collectors' spool
// disk fills up and is freed, and their clocks are stepped forwards and backwards. After each
// round, with nothing but the restarts a supervisor would do: the collectors catch up by
// themselves, every sample and job record the server acknowledged is in PostgreSQL exactly once,
// nothing the collectors spooled is missing, and the count of samples dropped on the full disk is
// exact. JOBSIGHT_FAULTS_SEED replays a run; JOBSIGHT_FAULTS_ROUNDS changes the number of rounds.

const NODE_JOBS = 4;
const ROUNDS = Number(process.env.JOBSIGHT_FAULTS_ROUNDS || 8);
const NEW_JOBS_PER_ROUND = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Health of a collector, or undefined while it cannot answer. */
const healthOf = (c: CollectorProcess): Promise<CollectorHealth | undefined> =>
  c.health().catch(() => undefined);

/** Collection rounds that failed for another reason than the full disk (there should be none). */
const otherFailedRounds = (c: CollectorProcess) =>
  c.logs.filter((l) => l.msg === "collection round failed" && !isFullDiskRound(l));

/** What the backend refused for good (dead-lettered), as the collector logged it. */
const refusalsOf = (c: CollectorProcess) => c.logs.filter((l) => /^backend refused/.test(String(l.msg)));

/** Poll `probe` until it gives a value; `seen` describes the last state for the timeout's message. */
async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  seen: () => unknown = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(seen())}`);
    await sleep(250);
  }
}

describe("faults, repeated: SIGKILLs, a full spool disk and clock steps, round after round", () => {
  const seed = faultSeed();
  const rng = seededRandom(seed);
  let stand: FaultStand;

  beforeAll(async () => {
    console.log(`[faults] seed=${seed} (replay with JOBSIGHT_FAULTS_SEED=${seed}), ${ROUNDS} rounds`);
    stand = await FaultStand.open({ nodeJobs: NODE_JOBS });
    console.log(`[faults] spool disk: ${stand.disk.description}`);
  }, 180_000);

  afterAll(async () => {
    await stand?.close();
  }, 120_000);

  it("stores every acknowledged sample and job once, catches up by itself, counts drops exactly", async () => {
    const { node, controller, recorder, postgres } = stand;
    const totals = { samples: 0, jobRecords: 0, duplicates: 0, failedRequests: 0, collisions: 0 };
    let droppedBefore = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      stand.slurm.advance(NEW_JOBS_PER_ROUND);
      const plan = planRound(rng, round - 1);
      recorder.resetFigures();
      const startFailures = stand.serverStartFailures;
      const startedAt = Date.now();
      await Promise.all(plan.map((episode) => stand.run(episode)));
      const faultsOverAt = Date.now();

      // Caught up: everything the node collector had spooled when the faults ended is acknowledged,
      // the controller has nothing left to send, and the jobs table shows the scheduler's truth.
      const snapshot = await until("the node collector's health", 30_000, () => healthOf(node));
      const expectedJobs = stand.slurm.expected();
      let seen: unknown;
      const caughtUp = await until(
        `the collectors to catch up (node spool acknowledged up to ${snapshot.spool.lastSeq})`,
        90_000,
        async () => {
          const [n, c] = await Promise.all([healthOf(node), healthOf(controller)]);
          seen = { node: n && { spool: n.spool, shipper: n.shipper }, controller: c?.spool };
          if (!n || !c || n.spool.ackedSeq < snapshot.spool.lastSeq || n.spool.writeError !== null) return;
          if (c.spool.unacked !== 0 || c.spool.ackedSeq !== c.spool.lastSeq) return;
          const stored = await readStored(recorder, postgres.url, CLUSTER);
          const jobs = checkJobs(stored, expectedJobs, CLUSTER, c.spool.lastSeq);
          seen = { ...(seen as object), jobsWrong: jobs.wrong };
          if (jobs.wrong.length > 0) return;
          return { n, c, stored, jobs };
        },
        () => seen,
      );
      const catchUpMs = Date.now() - faultsOverAt;
      const { n, c, stored, jobs } = caughtUp;

      const samples = checkSamples(stored, snapshot.spool.lastSeq);
      const problems = { samples: problemsOf(samples), jobs: problemsOf(jobs), keys: recorder.malformedKeys };
      if (Object.keys(problems.samples).length + Object.keys(problems.jobs).length + problems.keys.length > 0)
        console.log(
          `[faults] round ${round} seed=${seed}: ${plan.map(describeEpisode).join("; ")}; node spool at the` +
            ` end of the faults ${JSON.stringify(snapshot.spool)}; node log tail:\n` +
            node.logs
              .filter((l) => l.level !== "info")
              .slice(-25)
              .map((l) => JSON.stringify(l))
              .join("\n"),
        );
      expect(problems).toEqual({ samples: {}, jobs: {}, keys: [] });

      // Drops: each collection round that met the full disk dropped one routine sample per job,
      // and the counter (kept in the spool's state across restarts, on disk before the round's
      // failure is logged, so no kill -9 forgets any) says exactly that.
      expect(otherFailedRounds(node)).toEqual([]);
      const dropped = stand.droppedByLogs();
      expect(stand.forgottenDrops).toBe(0);
      const counter = await until("the drop counter to settle", 10_000, async () => {
        const h = await healthOf(node);
        return h && h.spool.droppedSamples === dropped ? dropped : undefined;
      }).catch(async () => (await node.health()).spool.droppedSamples);
      expect(counter).toBe(dropped);
      // A refusal names its batch, status and reason in the log: show those, not just a count.
      expect({ rejected: n.shipper?.rejectedRecords, refusals: refusalsOf(node) }).toEqual({
        rejected: 0,
        refusals: [],
      });
      expect(c.spool.droppedSamples).toBe(0);
      expect({ rejected: c.shipper?.rejectedRecords, refusals: refusalsOf(controller) }).toEqual({
        rejected: 0,
        refusals: [],
      });

      const f = recorder.figures;
      totals.samples = samples.ackedSamples;
      totals.jobRecords = jobs.ackedRecords;
      totals.duplicates += f.duplicates;
      totals.failedRequests += f.failedRequests;
      totals.collisions = samples.naturalKeyCollisions;
      console.log(
        `[faults] round ${round}/${ROUNDS} seed=${seed}: ${plan.map(describeEpisode).join("; ")}` +
          ` | faults took ${((faultsOverAt - startedAt) / 1000).toFixed(1)}s, server start retries ${stand.serverStartFailures - startFailures}` +
          `, clocks now node ${formatOffset(stand.clockOffsets.node)} controller ${formatOffset(stand.clockOffsets.controller)}` +
          ` | acked ${f.ackedRecords} records in ${f.ackedBatches} batches, ${f.duplicates} resends absorbed, ${f.failedRequests} requests failed` +
          ` | dropped on the full disk ${dropped - droppedBefore} (total ${dropped}; counter ${counter}, exact)` +
          ` | caught up in ${(catchUpMs / 1000).toFixed(1)}s: ${stored.samples.size} samples, ${stored.jobs.size} jobs stored, spool seq ${snapshot.spool.lastSeq} all acked`,
      );
      droppedBefore = dropped;
    }
    const dropped = stand.droppedByLogs();
    console.log(
      `[faults] total seed=${seed}: ${ROUNDS} rounds; samples acked and stored once ${totals.samples}` +
        ` (natural-key collisions from clock steps ${totals.collisions}), job records acked ${totals.jobRecords}` +
        ` for ${stand.slurm.expected().size} jobs; resends absorbed ${totals.duplicates}; failed requests ${totals.failedRequests}` +
        ` | kill -9: server ${stand.serverKills} (start retries ${stand.serverStartFailures}), postgres ${postgres.kills},` +
        ` node collector ${node.kills}, controller ${controller.kills}; disk full ${stand.diskFills}×; clock steps ${stand.clockSteps}` +
        ` | samples dropped on the full disk ${dropped}, counter on disk at every kill -9 of the node collector exact`,
    );
  }, 600_000);
});
