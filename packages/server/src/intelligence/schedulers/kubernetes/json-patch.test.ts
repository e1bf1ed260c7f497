import { describe, expect, it } from "vitest";
import { escapePointerSegment, jsonPointer, setMember } from "./json-patch.js";
import { applyJsonPatch } from "./test-support/apply-json-patch.js";

describe("JSON pointers", () => {
  it("escapes ~ before / so that the two never mix (RFC 6901)", () => {
    expect(escapePointerSegment("nvidia.com/gpu")).toBe("nvidia.com~1gpu");
    expect(escapePointerSegment("a~/b")).toBe("a~0~1b");
    expect(jsonPointer(["spec", "containers", 0, "resources", "limits", "example.com/foo~bar"])).toBe(
      "/spec/containers/0/resources/limits/example.com~1foo~0bar",
    );
  });
});

describe("setMember", () => {
  it("adds one member when the parent exists", () => {
    const doc = { metadata: { annotations: { a: "1" } } };
    const ops = setMember(doc, ["metadata", "annotations"], "jobsight.io/changes", "{}");
    expect(ops).toEqual([{ op: "add", path: "/metadata/annotations/jobsight.io~1changes", value: "{}" }]);
    expect(applyJsonPatch(doc, ops)).toEqual({
      metadata: { annotations: { a: "1", "jobsight.io/changes": "{}" } },
    });
  });

  it("creates the missing levels in one operation, walking through arrays", () => {
    const doc = { spec: { templates: [{ name: "a" }, { name: "b" }] } };
    const ops = setMember(doc, ["spec", "templates", 1, "metadata", "annotations"], "k", "v");
    expect(ops).toEqual([
      { op: "add", path: "/spec/templates/1/metadata", value: { annotations: { k: "v" } } },
    ]);
    expect(applyJsonPatch(doc, ops).spec.templates).toEqual([
      { name: "a" },
      { name: "b", metadata: { annotations: { k: "v" } } },
    ]);
  });

  it("replaces a null level", () => {
    const doc = { metadata: { annotations: null } };
    expect(applyJsonPatch(doc, setMember(doc, ["metadata", "annotations"], "k", "v"))).toEqual({
      metadata: { annotations: { k: "v" } },
    });
  });
});
