import { describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import { BadRequestError } from "../errors.js";
import { createFakeServer } from "../testing/fake-server.js";

function setup() {
  const fake = createFakeServer({ tokens: { "alice-token": ["researcher"] } });
  const client = createClient({
    baseUrl: fake.baseUrl,
    fetch: fake.fetch,
    token: "alice-token",
    retryDelayMs: 1,
  });
  return { fake, client };
}

describe("client.alerts.preferences", () => {
  it("reads the defaults, sets new preferences with PUT and reads them back", async () => {
    const { fake, client } = setup();
    expect(await client.alerts.preferences.get()).toEqual({
      user: "researcher",
      enabled: true,
      channels: ["email", "webhook"],
      digest: true,
    });
    const set = await client.alerts.preferences.set({
      enabled: true,
      channels: ["email"],
      digest: false,
      quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" },
    });
    expect(set).toMatchObject({ channels: ["email"], digest: false, quietHours: { start: "22:00" } });
    expect(await client.alerts.preferences.get()).toEqual(set);
    const put = fake.requests.find((r) => r.operationId === "setAlertPreferences");
    expect(put?.method).toBe("PUT");
  });

  it("maps a body the route table refuses to a BadRequestError naming the field", async () => {
    const { client } = setup();
    const error = await client.alerts.preferences
      .set({
        enabled: true,
        channels: ["email"],
        digest: true,
        quietHours: { start: "25:00", end: "07:00", timeZone: "UTC" },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify(error.body ?? error)).toContain("/quietHours/start");
  });
});
