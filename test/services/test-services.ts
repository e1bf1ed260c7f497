import { inject } from "vitest";
import { TestServicesError } from "./test-services-error.js";
import { TEST_SERVICES_KEY, type TestServices } from "./types.js";

/**
 * The PostgreSQL and S3 servers shared by this integration run, as provided by the global setup.
 *
 * @example
 * const { postgres, s3 } = testServices();
 * const admin = new pg.Client({ connectionString: postgres.url });
 */
export function testServices(): TestServices {
  const services = inject(TEST_SERVICES_KEY);
  if (!services) {
    throw new TestServicesError(
      "TEST_SERVICES_MISSING",
      "No shared test services: run this file in the vitest 'integration' project (its globalSetup starts them)",
    );
  }
  return services;
}
