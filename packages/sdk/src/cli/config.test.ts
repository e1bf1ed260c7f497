import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureIo } from "../test-support/capture-io.js";
import { ConfigError, defaultConfigPath, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("takes flags over environment over the config file", async () => {
    const { io, dir } = captureIo();
    mkdirSync(join(dir, ".config", "jobsight"), { recursive: true });
    writeFileSync(
      join(dir, ".config", "jobsight", "config.json"),
      JSON.stringify({ url: "http://file:1", token: "file", cluster: "c1", retries: 5 }),
    );
    io.env = { JOBSIGHT_URL: "http://env:2", JOBSIGHT_CLUSTER: "c2" };
    expect(await loadConfig({ cluster: "c3" }, undefined, io)).toEqual({
      url: "http://env:2",
      token: "file",
      cluster: "c3",
      retries: 5,
    });
  });

  it("honours XDG_CONFIG_HOME and an explicit --config relative to the working directory", async () => {
    const { io, dir } = captureIo();
    io.env = { XDG_CONFIG_HOME: join(dir, "xdg") };
    expect(defaultConfigPath(io)).toBe(join(dir, "xdg", "jobsight", "config.json"));
    writeFileSync(join(dir, "mine.json"), JSON.stringify({ url: "https://jobsight.example.org" }));
    expect((await loadConfig({}, "mine.json", io)).url).toBe("https://jobsight.example.org");
  });

  it("needs no config file unless one is named", async () => {
    const { io } = captureIo();
    expect(await loadConfig({}, undefined, io)).toEqual({});
    await expect(loadConfig({}, "nope.json", io)).rejects.toBeInstanceOf(ConfigError);
  });

  it("reports every problem at once, with where it is", async () => {
    const { io, dir } = captureIo();
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ url: "ftp://x", timeoutMs: -1, colour: true, retries: "3" }),
    );
    io.env = { JOBSIGHT_CLUSTER: "Bad Cluster" };
    const error = (await loadConfig({ url: "nope" }, "bad.json", io).catch((e) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.problems).toEqual([
      `${join(dir, "bad.json")}: colour: unknown setting (known: url, token, cluster, user, timeoutMs, retries)`,
      `${join(dir, "bad.json")}: retries: must be a number`,
      `${join(dir, "bad.json")}: url: must be an http(s) URL, e.g. https://jobsight.example.org`,
      `${join(dir, "bad.json")}: timeoutMs: must be a positive whole number of milliseconds`,
      "environment: cluster: must be a registered cluster id (lower-case letters, digits, - and _)",
      "flags: url: must be an http(s) URL, e.g. https://jobsight.example.org",
    ]);
  });
});
