import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "./api-routes.js";
import { generatedFiles } from "./generated-files.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

describe("generated JSON Schema and OpenAPI files", () => {
  const files = generatedFiles(version);

  // If this fails, run `pnpm --filter @jobsight/schemas generate` and commit the result.
  for (const [path, content] of files) {
    it(`${path} is committed and up to date`, () => {
      expect(readFileSync(join(root, path), "utf8")).toBe(content);
    });
  }

  it("the OpenAPI document has every route of the route table, with its roles", () => {
    const doc = JSON.parse(files.get("openapi/openapi.json")!);
    for (const route of apiRoutes) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op["x-jobsight-roles"]).toEqual(route.roles);
      expect(Boolean(op.security)).toBe(route.roles.length > 0);
    }
  });

  it("every $ref in the OpenAPI document resolves", () => {
    const text = files.get("openapi/openapi.json")!;
    const doc = JSON.parse(text);
    const refs = [...text.matchAll(/"\$ref": "#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    for (const name of refs) expect(doc.components.schemas[name], name).toBeDefined();
  });

  it("only health and readiness are unauthenticated", () => {
    expect(apiRoutes.filter((r) => r.roles.length === 0).map((r) => r.path)).toEqual(["/healthz", "/readyz"]);
  });
});
