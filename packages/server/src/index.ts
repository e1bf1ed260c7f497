// Public surface of @jobsight/server (its exports map's "."): the pieces its bin assembles the server from.
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
export type {
  BadLine,
  ImportHistoryOptions,
  ImportItem,
  ImportProgress,
  ImportReport,
} from "./data-plane/import/import-history.js";
export { fileSourceId, importHistory } from "./data-plane/import/import-history.js";
export type { ImportSacctOptions } from "./data-plane/import/import-sacct.js";
export { importSacctFile, sacctItems } from "./data-plane/import/import-sacct.js";
export type { ImportSwfOptions } from "./data-plane/import/import-swf.js";
export { importSwfFile, swfItems, swfRecordToJobRecord } from "./data-plane/import/import-swf.js";
export type { SacctJob, SacctStep } from "./data-plane/import/sacct-job.js";
export { sacctJobToRecord } from "./data-plane/import/sacct-job.js";
export { readSacctParsable } from "./data-plane/import/sacct-parsable-parser.js";
export { parseSacctJsonJob, readSacctJson } from "./data-plane/import/sacct-parser.js";
export { createObjectStore } from "./data-plane/objects/create-object-store.js";
export type { LocalObjectStoreOptions } from "./data-plane/objects/local-object-store.js";
export { LocalObjectStore } from "./data-plane/objects/local-object-store.js";
export type { ObjectStore, StoredObject } from "./data-plane/objects/object-store.js";
export { objectKey } from "./data-plane/objects/object-store.js";
export type { S3ObjectStoreOptions } from "./data-plane/objects/s3-object-store.js";
export { S3ObjectStore } from "./data-plane/objects/s3-object-store.js";
export type {
  Distribution,
  GroupSummary,
  HistorySummaryOptions,
} from "./data-plane/queries/history-summaries.js";
export type { JobCursor } from "./data-plane/queries/job-cursor.js";
export { decodeJobCursor, encodeJobCursor } from "./data-plane/queries/job-cursor.js";
export type { JobFilter, JobVisibility, ListJobsOptions } from "./data-plane/queries/job-queries.js";
export type { SamplePolicyOptions } from "./data-plane/queries/sample-policies.js";
export type { Database } from "./data-plane/storage/database.js";
export { withTransaction } from "./data-plane/storage/database.js";
export type { EmbeddedPostgresOptions } from "./data-plane/storage/embedded-postgres.js";
export { EmbeddedPostgres } from "./data-plane/storage/embedded-postgres.js";
export type { Migration, MigrationScript, StorageFlavour } from "./data-plane/storage/migration-files.js";
export { loadMigrations } from "./data-plane/storage/migration-files.js";
export type { MigrateOptions, MigrationReport } from "./data-plane/storage/migrator.js";
export { MigrationError, migrate } from "./data-plane/storage/migrator.js";
export type { OpenedStorage, OpenStorageOptions } from "./data-plane/storage/open-storage.js";
export { openStorage } from "./data-plane/storage/open-storage.js";
export type { SqlResult, SqlSession, SqlSessionSource } from "./data-plane/storage/sql-session.js";
export type { DataPlaneStorage, JobStore } from "./data-plane/storage/storage.js";
export { createDataPlaneStorage } from "./data-plane/storage/storage.js";
export type { ApiTokenRecord, ApiTokenStore } from "./data-plane/stores/api-token-store.js";
export { PostgresApiTokenStore } from "./data-plane/stores/api-token-store.js";
export type { ArtifactLink } from "./data-plane/stores/artifact-store.js";
export { ArtifactStore } from "./data-plane/stores/artifact-store.js";
export { ClusterStore } from "./data-plane/stores/cluster-store.js";
export { EventStore, eventDedupeKey } from "./data-plane/stores/event-store.js";
export type { ImportCheckpoint } from "./data-plane/stores/import-checkpoints.js";
export { readImportCheckpoint, resetImportCheckpoint } from "./data-plane/stores/import-checkpoints.js";
export type { JobUsageSummary } from "./data-plane/stores/sample-store.js";
export { SampleStore } from "./data-plane/stores/sample-store.js";
export type { ErrorCode, JobsightErrorOptions } from "./errors.js";
export {
  ClusterHasJobsError,
  errorCatalogue,
  ForbiddenError,
  InternalError,
  InvalidCursorError,
  JobAmbiguousError,
  JobsightError,
  MalformedBodyError,
  ModelNotServableError,
  NoEarlierModelError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  RateLimitedError,
  StorageUnavailableError,
  UnauthenticatedError,
  UnknownClusterError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "./errors.js";
export { sendApiError } from "./http/plugins/error-handler.js";
export type { RegisterApiRoutesOptions } from "./http/routes/register-api-routes.js";
export { registerApiRoutes } from "./http/routes/register-api-routes.js";
export type { RouteDeps } from "./http/routes/route-deps.js";
export type { RouteContext, RouteHandler, RouteHandlers } from "./http/routes/route-handler.js";
export { hashApiToken } from "./platform/identity/api-token-hash.js";
export type { ApiTokenVerifierOptions } from "./platform/identity/api-token-verifier.js";
export { ApiTokenVerifier } from "./platform/identity/api-token-verifier.js";
export type { ApiTokenRole, ApiTokensOptions, IssueApiTokenRequest } from "./platform/identity/api-tokens.js";
export { ApiTokens, generateApiToken } from "./platform/identity/api-tokens.js";
export type { Principal, TokenVerifier } from "./platform/identity/principal.js";
export { toJobsightError } from "./to-jobsight-error.js";
export { SERVER_VERSION } from "./version.js";
