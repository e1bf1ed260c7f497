// The security room of the server: sign-in (OIDC, scoped API tokens), authorisation rules,
// licence, control-plane heartbeat, TLS, log redaction and SQL identifier quoting. The app and
// the auth plugin import from here.

export {
  SqlIdentifierError,
  sqlIdentifier,
  sqlIdentifiers,
  sqlQualifiedIdentifier,
  sqlTimestampLiteral,
} from "../data-plane/storage/sql-identifier.js";
export {
  API_TOKEN_SCHEMA_STATEMENTS,
  ensureApiTokenSchema,
  PostgresApiTokenStore,
} from "../data-plane/stores/postgres-api-token-store.js";
export type { StorageHeartbeatCountsOptions } from "../data-plane/stores/storage-heartbeat-counts.js";
export { storageHeartbeatCounts } from "../data-plane/stores/storage-heartbeat-counts.js";
export type {
  ApiTokenRecord,
  ApiTokenRole,
  ApiTokenStore,
  ApiTokensOptions,
  IssueApiTokenRequest,
} from "./identity/api-tokens.js";
export {
  API_TOKEN_PREFIX,
  ApiTokens,
  apiTokenPrincipal,
  generateApiToken,
  hashApiToken,
  InMemoryApiTokenStore,
  looksLikeApiToken,
} from "./identity/api-tokens.js";
export type {
  AccessDecision,
  AccessRules,
  AccessScope,
  AccessTarget,
  VisibleScope,
} from "./identity/authorization.js";
export { accessRules, assertAuthorized, authorize, hasAccessRule } from "./identity/authorization.js";
export type { ClaimMappingOptions, GroupGrant } from "./identity/oidc-claims.js";
export { claimsToPrincipal } from "./identity/oidc-claims.js";
export type { OidcDiscoveryOptions, OidcProviderMetadata } from "./identity/oidc-discovery.js";
export { fetchOidcProviderMetadata } from "./identity/oidc-discovery.js";
export type { OidcVerification, OidcVerifierOptions } from "./identity/oidc-verifier.js";
export { ASYMMETRIC_ALGORITHMS, OidcVerifier } from "./identity/oidc-verifier.js";
export type { Principal, PrincipalSource } from "./identity/principal.js";
export { inPrincipalClusters } from "./identity/principal.js";
export type { TokenErrorCode } from "./identity/token-error.js";
export { TokenError, tokenErrorCatalogue } from "./identity/token-error.js";
export {
  apiTokensVerifier,
  fromServerPrincipal,
  oidcTokenVerifier,
  toServerPrincipal,
} from "./identity/token-verifiers.js";
export type {
  HeartbeatLogger,
  HeartbeatOptions,
  HeartbeatOutcome,
  HeartbeatSource,
  HeartbeatStats,
} from "./licence/heartbeat.js";
export { buildHeartbeat, HeartbeatClient, HeartbeatPayloadError } from "./licence/heartbeat.js";
export { HeartbeatPayload, heartbeatPayloadErrors } from "./licence/heartbeat-payload.js";
export type {
  LicenceState,
  LicenceStatus,
  LicenceStatusOptions,
  LoadedLicence,
  LoadLicenceOptions,
} from "./licence/licence.js";
export { LICENCE_TYPE, LicencePayload, licenceStatus, loadLicence, signLicence } from "./licence/licence.js";
export { LICENCE_PUBLIC_KEYS } from "./licence/licence-public-key.js";
export type { JobsightLoggerOptions } from "./redact.js";
export {
  jobsightLoggerOptions,
  logRedaction,
  REDACT_PATHS,
  REDACTED,
  redactUrl,
  serializeRequest,
} from "./redact.js";
export { SecurityConfigError } from "./security-config-error.js";
export type { TlsMaterial, TlsOptions } from "./tls.js";
export { grpcServerCredentials, httpsServerOptions, loadTlsMaterial } from "./tls.js";
