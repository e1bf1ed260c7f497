// Public surface of @jobsight/server (private package: used by its own bin, tests and the demo).
export type { BuildAppOptions } from "./app.js";
export { buildApp } from "./app.js";
export type { ConfigIssue } from "./config/config-error.js";
export { ConfigError } from "./config/config-error.js";
export type { ConfigSources } from "./config/config-sources.js";
export {
  configFromEnv,
  ENV_SETTINGS,
  loadServerConfig,
  mergeConfigLayers,
  readConfigFile,
} from "./config/config-sources.js";
export type { ParseConfigOptions } from "./config/parse-config.js";
export { parseServerConfig } from "./config/parse-config.js";
export type {
  ApiTokenConfig,
  HttpConfig,
  IngestConfig,
  LocalObjectStoreConfig,
  ObjectStoreConfig,
  PostgresConfig,
  RateLimitConfig,
  S3ObjectStoreConfig,
  ServerConfig,
} from "./config/server-config.js";
export type { ArtifactLink } from "./data-plane/artifact-store.js";
export { ArtifactStore } from "./data-plane/artifact-store.js";
export { ClusterStore } from "./data-plane/cluster-store.js";
export type { Database } from "./data-plane/database.js";
export { withTransaction } from "./data-plane/database.js";
export type { EmbeddedPostgresOptions } from "./data-plane/embedded-postgres.js";
export { EmbeddedPostgres } from "./data-plane/embedded-postgres.js";
export { EventStore, eventDedupeKey } from "./data-plane/event-store.js";
export type { Distribution, GroupSummary, HistorySummaryOptions } from "./data-plane/history-summaries.js";
export type { ImportCheckpoint } from "./data-plane/import-checkpoints.js";
export { readImportCheckpoint, resetImportCheckpoint } from "./data-plane/import-checkpoints.js";
export type { JobCursor } from "./data-plane/job-cursor.js";
export { decodeJobCursor, encodeJobCursor } from "./data-plane/job-cursor.js";
export type { JobFilter, JobVisibility, ListJobsOptions } from "./data-plane/job-queries.js";
export type { Migration, MigrationScript, StorageFlavour } from "./data-plane/migration-files.js";
export { loadMigrations } from "./data-plane/migration-files.js";
export type { MigrateOptions, MigrationReport } from "./data-plane/migrator.js";
export { MigrationError, migrate } from "./data-plane/migrator.js";
export type { LocalObjectStoreOptions } from "./data-plane/objects/local-object-store.js";
export { LocalObjectStore } from "./data-plane/objects/local-object-store.js";
export type { ObjectStore, StoredObject } from "./data-plane/objects/object-store.js";
export { objectKey } from "./data-plane/objects/object-store.js";
export type { S3ObjectStoreOptions } from "./data-plane/objects/s3-object-store.js";
export { S3ObjectStore } from "./data-plane/objects/s3-object-store.js";
export type { OpenedStorage, OpenStorageOptions } from "./data-plane/open-storage.js";
export { openStorage } from "./data-plane/open-storage.js";
export type { SamplePolicyOptions } from "./data-plane/sample-policies.js";
export type { JobUsageSummary } from "./data-plane/sample-store.js";
export { SampleStore } from "./data-plane/sample-store.js";
export type { SqlResult, SqlSession, SqlSessionSource } from "./data-plane/sql-session.js";
export type { DataPlaneStorage, JobStore } from "./data-plane/storage.js";
export { createDataPlaneStorage } from "./data-plane/storage.js";
export type { ApiTokenRecord } from "./data-plane/token-store.js";
export { hashToken, TokenStore } from "./data-plane/token-store.js";
export type { ErrorCode, JobsightErrorOptions } from "./errors.js";
export {
  errorCatalogue,
  ForbiddenError,
  InternalError,
  InvalidCursorError,
  JobAmbiguousError,
  JobsightError,
  MalformedBodyError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  RateLimitedError,
  StorageUnavailableError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "./errors.js";
export type {
  BadLine,
  ImportHistoryOptions,
  ImportItem,
  ImportProgress,
  ImportReport,
} from "./history/import-history.js";
export { fileSourceId, importHistory } from "./history/import-history.js";
export type { ImportSacctOptions } from "./history/import-sacct.js";
export { importSacctFile, sacctItems } from "./history/import-sacct.js";
export type { ImportSwfOptions } from "./history/import-swf.js";
export { importSwfFile, swfItems, swfRecordToJobRecord } from "./history/import-swf.js";
export type { SacctJob, SacctStep } from "./history/sacct-job.js";
export { sacctJobToRecord } from "./history/sacct-job.js";
export { readSacctParsable } from "./history/sacct-parsable-parser.js";
export { parseSacctJsonJob, readSacctJson } from "./history/sacct-parser.js";
export type { ApiTokenVerifierOptions } from "./plugins/auth/api-token-verifier.js";
export { ApiTokenVerifier } from "./plugins/auth/api-token-verifier.js";
export type { Principal, TokenVerifier } from "./plugins/auth/principal.js";
export { sendApiError, toJobsightError } from "./plugins/error-handler.js";
export { createObjectStore } from "./plugins/object-store.js";
export type { RegisterApiRoutesOptions } from "./routes/register-api-routes.js";
export { registerApiRoutes } from "./routes/register-api-routes.js";
export type { RouteDeps } from "./routes/route-deps.js";
export type { RouteContext, RouteHandler, RouteHandlers } from "./routes/route-handler.js";
export { SERVER_VERSION } from "./version.js";
