import type { QuietHours } from "@jobsight/schemas";

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/**
 * Whether `timeZone` is an IANA time zone this runtime knows (e.g. `Europe/Berlin`).
 *
 * @example
 * ```ts
 * isTimeZone("Europe/Berlin"); // true
 * isTimeZone("Mars/Olympus"); // false
 * ```
 */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatIn(timeZone);
    return true;
  } catch {
    return false;
  }
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether `at` falls in the quiet hours, read on the clock of their time zone (so daylight saving
 * time moves them with the user). `start` is inside, `end` outside; an `end` before `start` spans
 * midnight; equal ones are no quiet hours. An unknown time zone is never quiet (the API refuses
 * one; this keeps an old row from silencing a user for good).
 *
 * @example
 * ```ts
 * inQuietHours({ start: "22:00", end: "07:00", timeZone: "Europe/Berlin" }, new Date("2026-12-02T22:30:00Z")); // true (23:30 in Berlin)
 * ```
 */
export function inQuietHours(quiet: QuietHours, at: Date): boolean {
  if (!isTimeZone(quiet.timeZone)) return false;
  const local = minutes(formatIn(quiet.timeZone).format(at));
  const start = minutes(quiet.start);
  const end = minutes(quiet.end);
  if (start === end) return false;
  return start < end ? local >= start && local < end : local >= start || local < end;
}
