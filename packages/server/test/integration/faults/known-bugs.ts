/**
 * Known bug: `DiskSpool.countDropped` only marks the spool's state unsaved. The count reaches
 * `state.json` with the next spool operation (the next round's append, or the shipper's next
 * peek or acknowledgement, which wait while it backs off), so a collector killed in between
 * (OOM killer, reboot) forgets the samples its last full-disk round(s) dropped, though it logged
 * them. While true, the fault suite measures those forgotten drops (the counter in memory at the
 * kill, from the logs, against the state file left behind) and checks the counter against them,
 * and drop-count-durability.test.ts is expected to fail. Set to false once the spool writes the
 * count before the round's failure is reported.
 */
export const DROP_COUNT_FORGOTTEN_ON_KILL = true;
