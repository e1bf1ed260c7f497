import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SqlIdentifierError,
  sqlIdentifier,
  sqlIdentifiers,
  sqlQualifiedIdentifier,
} from "./sql-identifier.js";

// Reads a quoted identifier back the way PostgreSQL's lexer does: the text between the outer
// quotes, with "" meaning one quote, and nothing after the closing quote.
function unquote(quoted: string): string | undefined {
  if (!quoted.startsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < quoted.length; i++) {
    if (quoted[i] !== '"') {
      out += quoted[i];
    } else if (quoted[i + 1] === '"') {
      out += '"';
      i++;
    } else {
      return i === quoted.length - 1 ? out : undefined;
    }
  }
  return undefined;
}

describe("sqlIdentifier", () => {
  it("quotes plain names and doubles embedded quotes", () => {
    expect(sqlIdentifier("jobs")).toBe('"jobs"');
    expect(sqlIdentifier('we"ird')).toBe('"we""ird"');
    expect(sqlIdentifier('x"; DROP TABLE jobs; --')).toBe('"x""; DROP TABLE jobs; --"');
  });

  it("always yields exactly one identifier holding the original name", () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 40 })
          .filter((s) => !s.includes("\u0000") && Buffer.byteLength(s) <= 63),
        (name) => {
          expect(unquote(sqlIdentifier(name))).toBe(name);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("refuses names PostgreSQL would mangle", () => {
    expect(() => sqlIdentifier("")).toThrow(SqlIdentifierError);
    expect(() => sqlIdentifier("a\u0000b")).toThrow(SqlIdentifierError);
    expect(() => sqlIdentifier("x".repeat(64))).toThrow(SqlIdentifierError);
    expect(() => sqlIdentifier("é".repeat(32))).toThrow(SqlIdentifierError);
    expect(sqlIdentifier("x".repeat(63))).toHaveLength(65);
  });

  it("quotes qualified names and lists", () => {
    expect(sqlQualifiedIdentifier("public", "jobs")).toBe('"public"."jobs"');
    expect(sqlIdentifiers(["a", 'b"'])).toBe('"a", "b"""');
    expect(() => sqlQualifiedIdentifier()).toThrow(SqlIdentifierError);
  });
});
