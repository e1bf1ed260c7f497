import { type Static, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

// Every string of the heartbeat is pinned by an enum or a narrow pattern: nothing free-form can
// ride along, whatever a bug upstream puts into the values.
const SemVer = Type.String({
  pattern: "^(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})(-(alpha|beta|rc)\\.\\d{1,4})?$",
});
const Count = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });

/** The only document that ever leaves the site: versions, health, licence id and aggregate counts. */
export const HeartbeatPayload = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    sentAt: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?Z$" }),
    versions: Type.Object({ server: SemVer, schemas: SemVer, node: SemVer }, { additionalProperties: false }),
    health: Type.Union([Type.Literal("ok"), Type.Literal("degraded"), Type.Literal("unavailable")]),
    licence: Type.Object(
      {
        id: Type.Union([Type.String({ pattern: "^[A-Za-z0-9._-]{1,64}$" }), Type.Null()]),
        status: Type.Union([
          Type.Literal("valid"),
          Type.Literal("grace"),
          Type.Literal("expired"),
          Type.Literal("missing"),
          Type.Literal("invalid"),
        ]),
      },
      { additionalProperties: false },
    ),
    counts: Type.Object(
      { nodes: Count, clusters: Count, jobsPerDay: Count, predictionsPerDay: Count },
      { additionalProperties: false },
    ),
  },
  { $id: "HeartbeatPayload", additionalProperties: false },
);
export type HeartbeatPayload = Static<typeof HeartbeatPayload>;

const compiled = TypeCompiler.Compile(HeartbeatPayload);

/** Every way `value` breaks the heartbeat schema, as `path: message`; empty when it conforms. */
export function heartbeatPayloadErrors(value: unknown): string[] {
  if (compiled.Check(value)) return [];
  return [...compiled.Errors(value)].map((e) => `${e.path || "/"}: ${e.message}`);
}
