import fc from "fast-check";

/** A JSON Schema node as the OpenAPI document holds it (TypeBox output). */
export type JsonSchema = Record<string, unknown>;

/** What {@link arbitraryFor} resolves `$ref`s against, and how values are biased. */
export type SchemaContext = {
  /** `components.schemas` of the OpenAPI document. */
  components: Record<string, JsonSchema>;
  /** Values offered often for properties of these names (e.g. a registered cluster id). */
  favourites?: Record<string, unknown[]>;
};

const MAX_EXTRA_ITEMS = 2;

/**
 * Values that satisfy `schema` (most of the time: patterns are honoured through
 * `fc.stringMatching`, sizes are kept small so requests stay fast).
 *
 * @example
 * ```ts
 * fc.sample(arbitraryFor({ $ref: "#/components/schemas/UsageBatch" }, ctx), 1);
 * ```
 */
export function arbitraryFor(
  schema: JsonSchema,
  ctx: SchemaContext,
  name = "",
  depth = 0,
): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === "string") {
    const target = ctx.components[schema.$ref.replace("#/components/schemas/", "")];
    return target ? arbitraryFor(target, ctx, name, depth) : fc.jsonValue();
  }
  const favourite = ctx.favourites?.[name];
  const base = baseArbitrary(schema, ctx, depth);
  return favourite ? fc.oneof(fc.constantFrom(...favourite), base) : base;
}

function baseArbitrary(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...(schema.anyOf as JsonSchema[]).map((s) => arbitraryFor(s, ctx, "", depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case "object":
      return objectArbitrary(schema, ctx, depth);
    case "array": {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min(
        (schema.maxItems as number | undefined) ?? min + MAX_EXTRA_ITEMS,
        min + MAX_EXTRA_ITEMS,
      );
      const items = arbitraryFor((schema.items as JsonSchema) ?? {}, ctx, "", depth + 1);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    case "string":
      return stringArbitrary(schema);
    case "integer":
      return fc.integer({
        min: Math.max((schema.minimum as number | undefined) ?? -1_000, Number.MIN_SAFE_INTEGER),
        max: Math.min((schema.maximum as number | undefined) ?? 2 ** 40, Number.MAX_SAFE_INTEGER),
      });
    case "number":
      return fc.double({
        min: (schema.minimum as number | undefined) ?? -1e6,
        max: (schema.maximum as number | undefined) ?? 1e12,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  // Deep optional structures are mostly left out so the values stay small.
  const keep = Object.keys(properties).filter((k) => required.includes(k) || depth < 3);
  for (const key of keep) model[key] = arbitraryFor(properties[key], ctx, key, depth + 1);
  const record = fc.record(model, { requiredKeys: required.filter((k) => k in model) });
  const patterns = schema.patternProperties as Record<string, JsonSchema> | undefined;
  if (!patterns) return record;
  const [pattern, valueSchema] = Object.entries(patterns)[0];
  const dict = fc.dictionary(
    fc.stringMatching(new RegExp(pattern)),
    arbitraryFor(valueSchema, ctx, "", depth + 1),
    {
      maxKeys: 3,
    },
  );
  return fc.tuple(record, dict).map(([r, d]) => ({ ...d, ...(r as object) }));
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
  if (schema.format === "date-time") {
    return fc
      .date({
        min: new Date("2020-01-01T00:00:00Z"),
        max: new Date("2030-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (typeof schema.pattern === "string") {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
  }
  return fc
    .string({ minLength: min, maxLength: Math.min(max, min + 24), unit: "grapheme" })
    .filter((s) => s.length <= max);
}

/**
 * Values that mostly break `schema`: anything JSON, or a valid value with one field replaced,
 * removed or added.
 */
export function brokenArbitraryFor(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const valid = arbitraryFor(schema, ctx);
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc
      .tuple(valid, fc.jsonValue({ maxDepth: 2 }), fc.nat(), fc.constantFrom("replace", "remove", "add"))
      .map(([value, junk, pick, how]) => mutate(value, junk, pick, how)),
  );
}

function mutate(value: unknown, junk: unknown, pick: number, how: string): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return junk;
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const key = keys.length > 0 ? keys[pick % keys.length] : "x";
  if (how === "remove") delete copy[key];
  else if (how === "add") copy[`extra_${pick % 7}`] = junk;
  else copy[key] = junk;
  return copy;
}
