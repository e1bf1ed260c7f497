import { describe, expect, it } from "vitest";
import { parseServerConfig } from "../../config/parse-config.js";
import { DEFAULT_ALERT_THRESHOLDS } from "./alert-thresholds.js";
import { alertMonitorFromConfig, alertThresholds } from "./alerts-from-config.js";

const storage = {} as Parameters<typeof alertMonitorFromConfig>[1];
const log = { info() {}, warn() {}, error() {} };

describe("alerts from the configuration", () => {
  it("has the rules' documented defaults as the configuration's defaults", () => {
    expect(alertThresholds(parseServerConfig({}).alerts!)).toEqual(DEFAULT_ALERT_THRESHOLDS);
  });

  it("applies the platform team's thresholds, and none when alerts are off", () => {
    const config = parseServerConfig({
      alerts: { gpusIdle: { utilizationPercent: 10, minutes: 20 }, coresIdle: { minutes: 45 } },
    }).alerts;
    const monitor = alertMonitorFromConfig(config, storage, log);
    expect(monitor?.thresholds).toMatchObject({
      gpuIdlePercent: 10,
      gpuIdleMinutes: 20,
      coresIdleMinutes: 45,
    });
    expect(
      alertMonitorFromConfig(parseServerConfig({ alerts: { enabled: false } }).alerts, storage, log),
    ).toBeUndefined();
  });

  it("reports a webhook URL that is not http(s) by its position, never its text", () => {
    expect(() =>
      parseServerConfig({ alerts: { webhook: { urls: ["hooks.example.org/T/s3cr3t"] } } }),
    ).toThrow(/alerts\.webhook\.urls\[0\]: must be an http\(s\) URL/);
    try {
      parseServerConfig({ alerts: { webhook: { urls: ["hooks.example.org/T/s3cr3t"] } } });
    } catch (error) {
      expect(String(error)).not.toContain("s3cr3t");
    }
  });
});
