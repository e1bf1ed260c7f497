import type { Cluster } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

const COLUMNS = `id, name, scheduler, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`;

/** Registered clusters. */
export class ClusterStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Every registered cluster, by id. */
  async list(): Promise<Cluster[]> {
    const { rows } = await query<Cluster>(this.pool, `SELECT ${COLUMNS} FROM clusters ORDER BY id`);
    return rows;
  }

  /** One cluster, or `undefined`. */
  async get(id: string): Promise<Cluster | undefined> {
    const { rows } = await query<Cluster>(this.pool, `SELECT ${COLUMNS} FROM clusters WHERE id = $1`, [id]);
    return rows[0];
  }

  /**
   * Registers a cluster, or updates its name and scheduler when it exists.
   *
   * @example
   * ```ts
   * await clusters.register({ id: "hpc1", name: "HPC 1", scheduler: "slurm" });
   * ```
   */
  async register(cluster: Cluster): Promise<Cluster> {
    const { rows } = await query<Cluster>(
      this.pool,
      `INSERT INTO clusters (id, name, scheduler) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, scheduler = excluded.scheduler
       RETURNING ${COLUMNS}`,
      [cluster.id, cluster.name, cluster.scheduler],
    );
    return rows[0];
  }

  /**
   * Removes a cluster's registration; returns it, or `undefined` when there was none. Its jobs,
   * samples and predictions are other tables' and stay.
   *
   * @example
   * ```ts
   * const removed = await clusters.remove("hpc1");
   * ```
   */
  async remove(id: string): Promise<Cluster | undefined> {
    const { rows } = await query<Cluster>(
      this.pool,
      `DELETE FROM clusters WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0];
  }
}
