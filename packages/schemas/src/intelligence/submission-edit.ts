import { type Static, Type } from "@sinclair/typebox";
import { ResourceName } from "../common.js";

/** A recommendation turned into an edit of the user's own submission. */
export const SubmissionEdit = Type.Object(
  {
    format: Type.Union([Type.Literal("sbatch"), Type.Literal("kubernetes")], {
      description: "Submission format.",
    }),
    text: Type.String({
      description: "The edited submission; every byte outside the changed lines is untouched.",
    }),
    diff: Type.String({
      description: "Unified diff from the original to the edited text (empty when unchanged).",
    }),
    changes: Type.Array(
      Type.Object(
        {
          resource: ResourceName,
          before: Type.Optional(
            Type.String({ description: "The option or field as it was, absent when added." }),
          ),
          after: Type.String({ description: "The option or field as it is now." }),
          line: Type.Integer({ minimum: 1, description: "1-based line number in the edited text." }),
        },
        { additionalProperties: false },
      ),
      { description: "One entry per changed resource." },
    ),
  },
  {
    $id: "SubmissionEdit",
    additionalProperties: false,
    description: "An edit of the user's own submission.",
  },
);
export type SubmissionEdit = Static<typeof SubmissionEdit>;
