import { apiRoutes } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { fakeRoutes } from "../testing/fake-routes.js";
import { buildPath, buildQuery, matchRoute, routeOf } from "./route-table.js";

describe("route table", () => {
  it("knows every operation of @jobsight/schemas, and the fake server serves each", () => {
    for (const route of apiRoutes) {
      expect(routeOf(route.operationId as never)).toBe(route);
      expect(Object.keys(fakeRoutes)).toContain(route.operationId);
    }
    expect(Object.keys(fakeRoutes)).toHaveLength(apiRoutes.length);
  });

  it("lists exactly the query keys of GET /v1/jobs in JobListQuery", () => {
    // JobListQuery is written by hand for readable types; this pins it to the schema.
    const keys: Record<keyof import("../resources/jobs.js").JobListQuery, true> = {
      cluster: true,
      user: true,
      account: true,
      partition: true,
      state: true,
      from: true,
      to: true,
      limit: true,
      cursor: true,
    };
    expect(Object.keys(routeOf("listJobs").query?.properties ?? {}).sort()).toEqual(Object.keys(keys).sort());
  });

  it("builds and matches paths with encoded parameters", () => {
    const route = routeOf("getDiagnosis");
    const path = buildPath(route, { jobId: "ns/pod 1" });
    expect(path).toBe("/v1/jobs/ns%2Fpod%201/diagnosis");
    expect(matchRoute("GET", path)).toEqual({ route, params: { jobId: "ns/pod 1" } });
    expect(matchRoute("DELETE", path)).toEqual({ route: undefined, pathExists: true });
    expect(matchRoute("GET", "/v2/nothing")).toEqual({ route: undefined, pathExists: false });
    expect(() => buildPath(route, {})).toThrow(/missing path parameter jobId/);
  });

  it("leaves undefined query values out", () => {
    expect(buildQuery({ cluster: undefined, limit: 5, user: "a b" })).toBe("?limit=5&user=a+b");
    expect(buildQuery({ cluster: undefined })).toBe("");
  });
});
