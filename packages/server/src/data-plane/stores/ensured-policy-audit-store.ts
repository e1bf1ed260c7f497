import type pg from "pg";
import type { PolicyAuditRecord, PolicyAuditSink } from "./policy-audit-record.js";
import {
  ensurePolicyAuditSchema,
  type PolicyAuditPage,
  type PolicyAuditQuery,
  PolicyAuditStore,
} from "./policy-audit-store.js";

/**
 * The {@link PolicyAuditStore} that creates its table on first use (until the table is part of
 * the migrations): the server starts without touching it, and a failed creation is tried again
 * on the next use instead of leaving the audit broken until a restart.
 *
 * @example
 * ```ts
 * const audit = new EnsuredPolicyAuditStore(storage.pool);
 * await audit.record(records); // creates policy_audit first if needed
 * ```
 */
export class EnsuredPolicyAuditStore implements PolicyAuditSink {
  readonly #store: PolicyAuditStore;
  #ready: Promise<void> | undefined;

  constructor(private readonly pool: pg.Pool) {
    this.#store = new PolicyAuditStore(pool);
  }

  async record(records: readonly PolicyAuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#ensure();
    await this.#store.record(records);
  }

  async query(q: PolicyAuditQuery = {}): Promise<PolicyAuditPage> {
    await this.#ensure();
    return this.#store.query(q);
  }

  #ensure(): Promise<void> {
    this.#ready ??= ensurePolicyAuditSchema(this.pool).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }
}
