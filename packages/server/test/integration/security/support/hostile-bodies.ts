import fc from "fast-check";

/**
 * JSON text (or raw bytes) no schema-shaped generator produces: lone surrogates as escapes,
 * invalid UTF-8 bytes, nesting ten thousand levels deep, numbers far beyond any bound, and a value
 * larger than the body limit. Each is planted in place of one value of an otherwise well-formed
 * body, so it travels as far into a route as the route lets it.
 */
export type HostileFragment = { name: string; bytes: Buffer };

const DEPTH = 10_000;

/** Every hostile fragment, the oversized one sized to exceed `bodyLimitBytes`. */
export function hostileFragments(bodyLimitBytes: number): HostileFragment[] {
  const text = (name: string, json: string): HostileFragment => ({ name, bytes: Buffer.from(json) });
  const inString = (name: string, raw: number[]): HostileFragment => ({
    name,
    bytes: Buffer.from([0x22, 0x61, ...raw, 0x62, 0x22]),
  });
  return [
    text("lone high surrogate escape", '"\\ud800"'),
    text("lone low surrogate escape", '"a\\udfffb"'),
    text("surrogates in reverse order", '"\\udc00\\ud800"'),
    text("surrogate escape in a key", '{"\\ud800":1}'),
    inString("UTF-8 encoded surrogate bytes", [0xed, 0xa0, 0x80]),
    inString("bytes never valid in UTF-8", [0xff, 0xfe]),
    inString("overlong UTF-8", [0xc0, 0xaf]),
    inString("truncated UTF-8 sequence", [0xe2, 0x82]),
    text("array nested 10,000 deep", `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`),
    text("object nested 10,000 deep", `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`),
    text("1e308", "1e308"),
    text("-1e308", "-1e308"),
    text("1e400 (Infinity once parsed)", "1e400"),
    text("-1e400 (-Infinity once parsed)", "-1e400"),
    text("1e-400 (underflows to 0)", "1e-400"),
    text("2**53+1", "9007199254740993"),
    text("-(2**53+1)", "-9007199254740993"),
    text("400-digit integer", "9".repeat(400)),
    text("400-digit fraction", `0.${"0".repeat(399)}1`),
    text("value over the body limit", `"${"x".repeat(bodyLimitBytes + 1024)}"`),
  ];
}

const MARK = "jobsight-fuzz-hostile-mark-7f3c";

/**
 * `value` as JSON bytes with its `at`-th leaf (modulo the number of leaves, one past them meaning
 * the whole value) replaced by `fragment`.
 *
 * @example
 * ```ts
 * plant({ a: [1, "x"] }, 1, { name: "1e400", bytes: Buffer.from("1e400") }); // {"a":[1,1e400]}
 * ```
 */
export function plant(value: unknown, at: number, fragment: HostileFragment): Buffer {
  const leaves: { parent: Record<string, unknown>; key: string }[] = [];
  const copy = value === undefined ? null : structuredClone(value);
  const walk = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    for (const [key, child] of Object.entries(node)) {
      if (child && typeof child === "object" && Object.keys(child).length > 0) walk(child);
      else leaves.push({ parent: node as Record<string, unknown>, key });
    }
  };
  walk(copy);
  const pick = at % (leaves.length + 1);
  let planted: unknown = MARK;
  if (pick < leaves.length) {
    const { parent, key } = leaves[pick];
    parent[key] = MARK;
    planted = copy;
  }
  const [before, after] = JSON.stringify(planted).split(`"${MARK}"`);
  return Buffer.concat([Buffer.from(before), fragment.bytes, Buffer.from(after)]);
}

/** A body built from `base` with one hostile fragment planted somewhere in it. */
export function hostileBodyArbitrary(
  base: fc.Arbitrary<unknown>,
  bodyLimitBytes: number,
): fc.Arbitrary<{ payload: Buffer; type: string; hostile: string }> {
  return fc
    .record({ value: base, at: fc.nat(), fragment: fc.constantFrom(...hostileFragments(bodyLimitBytes)) })
    .map(({ value, at, fragment }) => ({
      payload: plant(value, at, fragment),
      type: "application/json",
      hostile: fragment.name,
    }));
}
