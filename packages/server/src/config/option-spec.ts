/**
 * The type of one option's value. Strings from the environment and flags are converted; a `list`
 * is an array in the file and a single item from the environment.
 */
export type OptionType = "string" | "integer" | "number" | "boolean" | "enum" | "list";

/** One configuration option: where it sits in the file, its variable and flag, its type and default. */
export type OptionSpec = {
  /**
   * Dotted path in the configuration file, e.g. `http.port`; `[]` marks an item of a list
   * (`auth.tokens[].role`) and `<group>` an entry of a map keyed by name.
   */
  path: string;
  type: OptionType;
  /** One line for the README and `--help`. */
  description: string;
  /** `JOBSIGHT_*` variable; none for items of lists and maps. */
  env?: string;
  /** Flag of `jobsight-server serve`; a boolean flag named `--no-…` sets `false`, others `true`. */
  flag?: string;
  /** Allowed values of an `enum`, or of each item of a `list`. */
  values?: readonly string[];
  /** What a wrong `list` item is called in messages (`"admin" is not a role`). */
  itemName?: string;
  /** The value the parser applies when the option is absent or invalid. @default undefined (unset) */
  default?: string | number | boolean | readonly string[];
  /** How the README shows a default computed at parse time (from other options or the machine). */
  defaultText?: string;
  /** Bounds of an `integer` or a `number`. */
  min?: number;
  max?: number;
  /** A `string` may be empty. @default false */
  allowEmpty?: boolean;
  /** Holds a credential: never printed, logged or given a default. @default false */
  secret?: boolean;
};
