import type { Policy } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** The policy in force before the platform team sets one: recommendations pass unchanged. */
export const DEFAULT_POLICY: Policy = { name: "default" };

/**
 * The newest stored policy, or undefined when none was ever set.
 *
 * @example
 * ```ts
 * const policy = (await loadPolicy(pool)) ?? DEFAULT_POLICY;
 * ```
 */
export async function loadPolicy(pool: pg.Pool): Promise<Policy | undefined> {
  const { rows } = await query<{ policy: Policy }>(
    pool,
    "SELECT policy FROM policies ORDER BY id DESC LIMIT 1",
  );
  return rows[0]?.policy;
}

/** Stores a policy as the active one (earlier ones stay as history). */
export async function savePolicy(pool: pg.Pool, policy: Policy, setBy: string): Promise<void> {
  await query(pool, "INSERT INTO policies (policy, set_by) VALUES ($1, $2)", [JSON.stringify(policy), setBy]);
}
