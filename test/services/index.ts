// Shared real services for integration tests in every package. Import from a test file, e.g.
// `import { createTestDatabase } from "../../../../test/services/index.js";`
export type { TestBucket } from "./test-bucket.js";
export { createTestBucket } from "./test-bucket.js";
export type { TestDatabase } from "./test-database.js";
export { createTestDatabase, createTimescaleTestDatabase } from "./test-database.js";
export { testServices } from "./test-services.js";
export type { TestServicesErrorCode } from "./test-services-error.js";
export { TestServicesError } from "./test-services-error.js";
export type { PostgresServiceInfo, S3ServiceInfo, TestServices, TimescaleServiceState } from "./types.js";
