import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Name, Sha256, Timestamp } from "../common.js";

/** The kinds of artifacts stored in object storage. */
export const ArtifactKind = Type.Union(
  [Type.Literal("script"), Type.Literal("manifest"), Type.Literal("log"), Type.Literal("model")],
  {
    description:
      "script: an sbatch script; manifest: a Kubernetes manifest; log: a log excerpt; model: a trained model file.",
  },
);

/** A stored artifact, content-addressed by sha256 (the same bytes are stored once). */
export const Artifact = Type.Object(
  {
    sha256: Sha256,
    kind: ArtifactKind,
    sizeBytes: Type.Integer({ minimum: 0, description: "Size in bytes." }),
    contentType: Name("MIME type.", 128),
    cluster: Type.Optional(ClusterId),
    jobId: Type.Optional(Name("Job the artifact belongs to.", 256)),
    createdAt: Timestamp,
  },
  { $id: "Artifact", additionalProperties: false, description: "A stored artifact." },
);
export type Artifact = Static<typeof Artifact>;
