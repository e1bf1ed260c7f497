const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp into Unix nanoseconds, keeping every fractional digit up to
 * nanoseconds (Date.parse stops at milliseconds).
 *
 * @returns `undefined` when the text is not an RFC 3339 timestamp.
 * @example
 * ```ts
 * rfc3339ToUnixNano("2026-12-02T16:30:00.123456789Z"); // 1796229000123456789n
 * ```
 */
export function rfc3339ToUnixNano(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = "", sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const c = new Date(ms);
  // Date.UTC rolls impossible dates over (Feb 30 -> Mar 2); refuse them instead.
  const fields = [
    c.getUTCFullYear(),
    c.getUTCMonth() + 1,
    c.getUTCDate(),
    c.getUTCHours(),
    c.getUTCMinutes(),
  ];
  if (fields.join() !== [y, mo, d, h, mi].map(Number).join() || Number(s) > 59) return undefined;
  const offsetMinutes = sign ? (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const nanos = BigInt((fraction + "000000000").slice(0, 9));
  return (BigInt(ms) - BigInt(offsetMinutes) * 60_000n) * 1_000_000n + nanos;
}

/**
 * Formats Unix nanoseconds as canonical RFC 3339 UTC: milliseconds like `Date.toISOString()`
 * when that is exact, otherwise all nine fractional digits.
 *
 * @example
 * ```ts
 * unixNanoToRfc3339(1796229000123000000n); // "2026-12-02T16:30:00.123Z"
 * unixNanoToRfc3339(1796229000123456789n); // "2026-12-02T16:30:00.123456789Z"
 * ```
 */
export function unixNanoToRfc3339(nanos: bigint): string {
  if (nanos < 0n) throw new RangeError("timestamps before 1970 are not supported");
  // Whole milliseconds (nearly every sample): Date writes exactly the canonical form.
  if (nanos % 1_000_000n === 0n) return new Date(Number(nanos / 1_000_000n)).toISOString();
  const subsecond = nanos % 1_000_000_000n;
  const iso = new Date(Number(nanos / 1_000_000_000n) * 1000).toISOString().slice(0, 19);
  if (subsecond % 1_000_000n === 0n) return `${iso}.${String(subsecond / 1_000_000n).padStart(3, "0")}Z`;
  return `${iso}.${String(subsecond).padStart(9, "0")}Z`;
}

/**
 * The canonical form of an RFC 3339 timestamp (UTC, as {@link unixNanoToRfc3339} writes it),
 * which is what decoded samples carry.
 *
 * @example
 * ```ts
 * canonicalRfc3339("2026-12-02T17:30:00+01:00"); // "2026-12-02T16:30:00.000Z"
 * ```
 */
export function canonicalRfc3339(text: string): string | undefined {
  const nanos = rfc3339ToUnixNano(text);
  return nanos === undefined ? undefined : unixNanoToRfc3339(nanos);
}
