import { FormatRegistry, type Static, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import type { FieldError } from "./api-error.js";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has("date-time")) {
  FormatRegistry.Set("date-time", (v) => RFC3339.test(v) && !Number.isNaN(Date.parse(v)));
}
if (!FormatRegistry.Has("uri")) {
  FormatRegistry.Set("uri", (v) => {
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  });
}

/** Thrown by the `assert*` functions; lists every offending field. */
export class SchemaValidationError extends Error {
  readonly code = "VALIDATION_FAILED";
  constructor(
    readonly schema: string,
    readonly errors: FieldError[],
  ) {
    super(`${schema} is invalid: ${errors.map((e) => `${e.path || "/"}: ${e.message}`).join("; ")}`);
    this.name = "SchemaValidationError";
  }
}

/** The result of a `validate*` function. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A compiled validator for one schema. */
export type Validator<T extends TSchema> = {
  readonly schema: T;
  check(value: unknown): value is Static<T>;
  validate(value: unknown): ValidationResult<Static<T>>;
  assert(value: unknown): asserts value is Static<T>;
};

// Unions report a generic error at the union's path and then one per branch; keep the most
// specific message per path so a person sees the field that is really wrong.
function collectErrors(check: TypeCheck<TSchema>, value: unknown, limit = 100): FieldError[] {
  const byPath = new Map<string, string>();
  for (const error of check.Errors(value)) {
    if (!byPath.has(error.path)) byPath.set(error.path, error.message);
    if (byPath.size >= limit) break;
  }
  const paths = [...byPath.keys()];
  const isAncestor = (p: string, q: string) => q !== p && (p === "" || q.startsWith(`${p}/`));
  return paths
    .filter((p) => !paths.some((q) => isAncestor(p, q)))
    .map((path) => ({ path, message: byPath.get(path)! }));
}

/**
 * Compile a validator for a schema once; use it many times.
 *
 * @example
 * ```ts
 * const v = compileValidator(JobSpec);
 * const r = v.validate(input);
 * if (!r.ok) console.log(r.errors); // [{ path: "/user", message: "Expected string" }]
 * ```
 */
export function compileValidator<T extends TSchema>(
  schema: T,
  name = String(schema.$id ?? "value"),
): Validator<T> {
  let compiled: TypeCheck<T> | undefined;
  const get = () => {
    compiled ??= TypeCompiler.Compile(schema);
    return compiled;
  };
  return {
    schema,
    check: (value): value is Static<T> => get().Check(value),
    validate(value) {
      const c = get();
      if (c.Check(value)) return { ok: true, value: value as Static<T> };
      return { ok: false, errors: collectErrors(c as TypeCheck<TSchema>, value) };
    },
    assert(value): asserts value is Static<T> {
      const c = get();
      if (!c.Check(value))
        throw new SchemaValidationError(name, collectErrors(c as TypeCheck<TSchema>, value));
    },
  };
}
