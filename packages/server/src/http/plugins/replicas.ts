import { ChangeListener } from "../../data-plane/storage/change-listener.js";
import { LeaderLease } from "../../data-plane/storage/leader-lease.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Whether this replica leads the scheduled work of the replicas on its database. */
    leadership: LeaderLease;
    /** Changes other replicas made to the shared state (active model, policy), told by PostgreSQL. */
    sharedChanges: ChangeListener;
  }
}

/** Options of {@link replicasPlugin}. */
export type ReplicasPluginOptions = {
  /** ms between attempts to take the leader lease (the longest a failover waits). @default 5000 */
  leaseIntervalMs?: number;
};

/**
 * What lets several server replicas share one database: `app.leadership`, the leader lease (one
 * replica runs the scheduled work, another takes over within `leaseIntervalMs` when it dies), and
 * `app.sharedChanges`, the database's notifications of a changed model or policy. Each holds one
 * connection of its own (not from the pool); both are given up when the app closes, after the
 * `preClose` hooks stopped the work that reads them.
 *
 * @example
 * ```ts
 * await app.register(replicasPlugin, {});
 * app.leadership.isLeader;
 * app.sharedChanges.on((change) => console.log(change));
 * ```
 */
export const replicasPlugin = globalPlugin<ReplicasPluginOptions>(
  "jobsight-replicas",
  async (app, options) => {
    const pool = app.storage.pool;
    const lease = new LeaderLease(pool, {
      intervalMs: options.leaseIntervalMs,
      log: app.log.child({ component: "leader-lease" }),
    });
    const changes = new ChangeListener(pool, { log: app.log.child({ component: "shared-changes" }) });
    app.decorate("leadership", lease);
    app.decorate("sharedChanges", changes);
    lease.start();
    changes.start();
    app.addHook("onClose", async () => {
      await Promise.all([lease.stop(), changes.stop()]);
    });
  },
);
