// Child of collector.bench.ts: runs node-mode rounds with the BUILT collector under plain node, so
// resident memory is the collector's own and not that of a TypeScript loader.
// argv: <cgroupRoot> <procRoot> <spoolDir> <rounds>; prints one JSON line.
import { DiskSpool, NodeMode, ProcReader } from "../dist/index.js";

const [cgroupRoot, procRoot, spoolDir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const spool = await DiskSpool.open({ dir: spoolDir });
const mode = new NodeMode({
  cluster: "bench",
  node: "n001",
  spool,
  proc: new ProcReader({ root: procRoot }),
  cgroupVersion: "v2",
  cgroupRoot,
});
for (let i = 0; i < 3; i++) await mode.collect();
const cpu = [];
let rss = 0;
for (let i = 0; i < rounds; i++) {
  const before = process.cpuUsage();
  await mode.collect();
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1e6);
  rss = Math.max(rss, process.memoryUsage.rss());

  // The shipper acknowledges in production; keep the spool from growing during the run.
  const batch = await spool.peek({ maxRecords: 10_000 });
  if (batch.length) await spool.ack(batch[batch.length - 1].seq, batch.length);
  // Rounds are 10 s apart in production; let timers and GC breathe between them here.
  await new Promise((r) => setTimeout(r, 20));
}
await mode.stop();
await spool.close();
const { jobs, heapTrims } = mode.stats();
process.stdout.write(`${JSON.stringify({ jobs, cpu, rss, heapTrims })}\n`);
