import { parseArgs } from "node:util";
import type { AlertChannelName, AlertPreferencesUpdate } from "@jobsight/schemas";
import { UsageError } from "../cli-errors.js";
import type { CliIo } from "../cli-io.js";
import { connect, connectionOptions } from "./connection-options.js";
import { expectArguments, help, writeJson } from "./operator-command.js";

const CHANNELS = new Set<AlertChannelName>(["email", "webhook"]);
const QUIET = /^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$/;

function onOff(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new UsageError(`--${flag} must be on or off, not ${value}`);
}

/**
 * `jobsight alerts preferences`: prints the caller's alert preferences (JSON); with any of
 * `--alerts`, `--channels`, `--digest`, `--quiet`/`--no-quiet` changes those and keeps the rest.
 */
export async function runAlertPreferences(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      alerts: { type: "string" },
      channels: { type: "string" },
      digest: { type: "string" },
      quiet: { type: "string" },
      "time-zone": { type: "string" },
      "no-quiet": { type: "boolean" },
      "for-user": { type: "string" },
    },
  });
  if (values.help) return help("alerts", io);
  expectArguments(positionals, 0, "alerts preferences [--alerts on|off] [--channels email,webhook]");
  const enabled = onOff("alerts", values.alerts);
  const digest = onOff("digest", values.digest);
  const channels = values.channels?.split(",").filter((c) => c !== "");
  for (const c of channels ?? [])
    if (!CHANNELS.has(c as AlertChannelName))
      throw new UsageError(`--channels takes email and webhook, not ${c}`);
  if (values.quiet !== undefined && !QUIET.test(values.quiet))
    throw new UsageError(`--quiet must be HH:MM-HH:MM, e.g. 22:00-07:00, not ${values.quiet}`);
  if (values.quiet !== undefined && values["no-quiet"])
    throw new UsageError("--quiet and --no-quiet exclude each other");
  const { client } = await connect({ ...values, cluster: undefined, user: undefined }, io);
  const target = { user: values["for-user"] };
  const current = await client.alerts.preferences.get(target);
  const changing =
    enabled !== undefined ||
    digest !== undefined ||
    channels !== undefined ||
    values.quiet ||
    values["no-quiet"];
  if (!changing) return writeJson(current, io);
  const update: AlertPreferencesUpdate = {
    enabled: enabled ?? current.enabled,
    channels: (channels as AlertChannelName[] | undefined) ?? current.channels,
    digest: digest ?? current.digest,
  };
  if (values.quiet) {
    const [start, end] = values.quiet.split("-");
    const timeZone =
      values["time-zone"] ?? current.quietHours?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    update.quietHours = { start, end, timeZone };
  } else if (!values["no-quiet"] && current.quietHours) update.quietHours = current.quietHours;
  return writeJson(await client.alerts.preferences.set(update, target), io);
}
