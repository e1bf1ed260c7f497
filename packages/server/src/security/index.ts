// The security room of the server: sign-in (OIDC, scoped API tokens), authorisation rules,
// licence, control-plane heartbeat, TLS, log redaction and SQL identifier quoting. The app and
// the auth plugin import from here.
export type {
  ApiTokenRecord,
  ApiTokenRole,
  ApiTokenStore,
  ApiTokensOptions,
  IssueApiTokenRequest,
} from "./api-tokens.js";
export {
  API_TOKEN_PREFIX,
  ApiTokens,
  apiTokenPrincipal,
  generateApiToken,
  hashApiToken,
  InMemoryApiTokenStore,
  looksLikeApiToken,
} from "./api-tokens.js";
export type {
  AccessDecision,
  AccessRules,
  AccessScope,
  AccessTarget,
  VisibleScope,
} from "./authorization.js";
export { accessRules, assertAuthorized, authorize, hasAccessRule } from "./authorization.js";
export type {
  HeartbeatLogger,
  HeartbeatOptions,
  HeartbeatOutcome,
  HeartbeatSource,
  HeartbeatStats,
} from "./heartbeat.js";
export { buildHeartbeat, HeartbeatClient, HeartbeatPayloadError } from "./heartbeat.js";
export { HeartbeatPayload, heartbeatPayloadErrors } from "./heartbeat-payload.js";
export type {
  LicenceState,
  LicenceStatus,
  LicenceStatusOptions,
  LoadedLicence,
  LoadLicenceOptions,
} from "./licence.js";
export { LICENCE_TYPE, LicencePayload, licenceStatus, loadLicence, signLicence } from "./licence.js";
export { LICENCE_PUBLIC_KEYS } from "./licence-public-key.js";
export type { ClaimMappingOptions, GroupGrant } from "./oidc-claims.js";
export { claimsToPrincipal } from "./oidc-claims.js";
export type { OidcDiscoveryOptions, OidcProviderMetadata } from "./oidc-discovery.js";
export { fetchOidcProviderMetadata } from "./oidc-discovery.js";
export type { OidcVerification, OidcVerifierOptions } from "./oidc-verifier.js";
export { ASYMMETRIC_ALGORITHMS, OidcVerifier } from "./oidc-verifier.js";
export {
  API_TOKEN_SCHEMA_STATEMENTS,
  ensureApiTokenSchema,
  PostgresApiTokenStore,
} from "./postgres-api-token-store.js";
export type { Principal, PrincipalSource } from "./principal.js";
export { inPrincipalClusters } from "./principal.js";
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
export {
  SqlIdentifierError,
  sqlIdentifier,
  sqlIdentifiers,
  sqlQualifiedIdentifier,
  sqlTimestampLiteral,
} from "./sql-identifier.js";
export type { StorageHeartbeatCountsOptions } from "./storage-heartbeat-counts.js";
export { storageHeartbeatCounts } from "./storage-heartbeat-counts.js";
export type { TlsMaterial, TlsOptions } from "./tls.js";
export { grpcServerCredentials, httpsServerOptions, loadTlsMaterial } from "./tls.js";
export type { TokenErrorCode } from "./token-error.js";
export { TokenError, tokenErrorCatalogue } from "./token-error.js";
export {
  apiTokensVerifier,
  fromServerPrincipal,
  oidcTokenVerifier,
  toServerPrincipal,
} from "./token-verifiers.js";
