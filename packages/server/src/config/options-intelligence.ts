import type { OptionSpec } from "./option-spec.js";

/** The intelligence plane and the optional language model that rephrases diagnoses. */
export const intelligenceOptions = [
  {
    path: "intelligence.enabled",
    type: "boolean",
    env: "JOBSIGHT_INTELLIGENCE_ENABLED",
    default: true,
    description: "Run the intelligence plane in this process (predictions, accuracy, diagnosis, policy).",
  },
  {
    path: "intelligence.mode",
    type: "enum",
    env: "JOBSIGHT_MODE",
    values: ["auto", "shadow", "live"],
    default: "auto",
    description: "auto is shadow for intelligence.shadowDays from the first start, then live; or force one.",
  },
  {
    path: "intelligence.shadowDays",
    type: "integer",
    env: "JOBSIGHT_SHADOW_DAYS",
    default: 30,
    min: 0,
    max: 3650,
    description: "Length of shadow mode from the deployment's first start, in days.",
  },
  {
    path: "intelligence.retrainIntervalHours",
    type: "integer",
    env: "JOBSIGHT_RETRAIN_INTERVAL_HOURS",
    default: 24,
    min: 0,
    max: 24 * 365,
    description: "Hours between retrainings; 0 retrains only on demand (jobsight-server train).",
  },
  {
    path: "intelligence.recalibrateIntervalHours",
    type: "integer",
    env: "JOBSIGHT_INTELLIGENCE_RECALIBRATE_INTERVAL_HOURS",
    default: 6,
    min: 0,
    max: 24 * 365,
    description:
      "Hours between refits of the model's calibration on the jobs that ended since (the trees unchanged; a new version <model>.c<n>); 0 turns them off.",
  },
  {
    path: "intelligence.trainOnStart",
    type: "boolean",
    env: "JOBSIGHT_INTELLIGENCE_TRAIN_ON_START",
    default: true,
    description: "Train once at start when no model is active yet.",
  },
  {
    path: "intelligence.llm.baseUrl",
    type: "string",
    env: "JOBSIGHT_INTELLIGENCE_LLM_BASE_URL",
    description:
      "OpenAI-compatible endpoint up to the API version (e.g. http://10.0.0.5:8000/v1) of a model that rephrases diagnoses. Default: none.",
  },
  {
    path: "intelligence.llm.model",
    type: "string",
    env: "JOBSIGHT_INTELLIGENCE_LLM_MODEL",
    description: "Model name as the endpoint knows it; required with intelligence.llm.baseUrl.",
  },
  {
    path: "intelligence.llm.apiKeyEnv",
    type: "string",
    env: "JOBSIGHT_INTELLIGENCE_LLM_API_KEY_ENV",
    description:
      "Name of the environment variable holding the endpoint's API key (the key stays out of files).",
  },
  {
    path: "intelligence.llm.timeoutMs",
    type: "integer",
    env: "JOBSIGHT_INTELLIGENCE_LLM_TIMEOUT_MS",
    default: 20_000,
    min: 100,
    max: 600_000,
    description: "Give up on the endpoint after this many milliseconds.",
  },
  {
    path: "intelligence.llm.maxTokens",
    type: "integer",
    env: "JOBSIGHT_INTELLIGENCE_LLM_MAX_TOKENS",
    default: 400,
    min: 16,
    max: 8192,
    description: "Most tokens the model may write.",
  },
] as const satisfies readonly OptionSpec[];
