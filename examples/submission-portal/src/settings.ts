import { createClient, type JobsightClient } from "@jobsight/sdk";

/** Who asks, and where: kept for the browser tab's session only. */
export type Settings = { cluster: string; user: string; token: string };

const KEY = "jobsight-portal-settings";

/** The settings of this tab, or those given in the URL (`?cluster=hpc1&user=alice`). */
export function loadSettings(): Settings {
  const saved = JSON.parse(sessionStorage.getItem(KEY) ?? "{}") as Partial<Settings>;
  const query = new URLSearchParams(location.search);
  return {
    cluster: query.get("cluster") ?? saved.cluster ?? "",
    user: query.get("user") ?? saved.user ?? "",
    token: saved.token ?? "",
  };
}

/** Remembers the settings until the tab is closed (never in localStorage: the token is a secret). */
export function saveSettings(settings: Settings): void {
  sessionStorage.setItem(KEY, JSON.stringify(settings));
}

/**
 * A client of the Jobsight server this page was served with: the portal's own server forwards
 * `/v1` to Jobsight, so the browser talks to one origin and needs no CORS.
 */
export function clientFor(settings: Settings): JobsightClient {
  return createClient({
    baseUrl: location.origin,
    token: settings.token || undefined,
    timeoutMs: 20_000,
    retries: 1,
  });
}
