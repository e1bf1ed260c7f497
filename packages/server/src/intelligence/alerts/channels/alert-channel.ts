import type { AlertStore } from "../../../data-plane/stores/alert-store.js";
import type { DeliveryReport } from "./webhook-channel.js";

/** What a channel reads alerts from and records deliveries on (the alert store, or a view of it). */
export type AlertChannelStore = Pick<AlertStore, "undelivered" | "markDelivered" | "list">;

/**
 * A way live alerts leave the server (e-mail, Alertmanager), run by the alert monitor after each
 * evaluation. `deliver` never rejects: failures are logged, counted and retried later.
 */
export type AlertChannel = {
  /** Names the channel in reports and logs, e.g. `"email"`. */
  readonly name: string;
  deliver(store: AlertChannelStore): Promise<DeliveryReport>;
};
