import { join } from "node:path";
import type { Server as TlsServer } from "node:tls";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { JWK } from "jose";
import type { ServerConfig } from "./config/server-config.js";
import { IngestGate } from "./data-plane/ingest-gate.js";
import type { ObjectStore } from "./data-plane/objects/object-store.js";
import { reportingNodes } from "./data-plane/queries/deployment-counts.js";
import type { DataPlaneStorage } from "./data-plane/storage/storage.js";
import { admissionCaller } from "./http/plugins/admission-caller.js";
import { authPlugin } from "./http/plugins/auth.js";
import { errorHandlerPlugin, sendApiError } from "./http/plugins/error-handler.js";
import { licenceStatusPlugin } from "./http/plugins/licence-status.js";
import { objectStorePlugin } from "./http/plugins/object-store.js";
import { postgresPlugin } from "./http/plugins/postgres.js";
import { rateLimitPlugin } from "./http/plugins/rate-limit.js";
import { replicasPlugin } from "./http/plugins/replicas.js";
import { serverMetricsPlugin } from "./http/plugins/server-metrics.js";
import { adminHandlers } from "./http/routes/admin/admin-handlers.js";
import { alertActionRoutes } from "./http/routes/alert-actions.js";
import { alertPreferenceRoutes } from "./http/routes/alert-preferences.js";
import { alertRoutes } from "./http/routes/alerts.js";
import { artifactRoutes } from "./http/routes/artifacts.js";
import { clusterRoutes } from "./http/routes/clusters.js";
import { eventRoutes } from "./http/routes/events.js";
import { healthRoutes } from "./http/routes/health.js";
import { intelligenceHandlers } from "./http/routes/intelligence/intelligence-handlers.js";
import { jobRoutes } from "./http/routes/jobs.js";
import { registerJsonBodyParser } from "./http/routes/json-body-parser.js";
import { metricsRoutes } from "./http/routes/metrics.js";
import { modelReadiness } from "./http/routes/model-readiness.js";
import { registerApiRoutes } from "./http/routes/register-api-routes.js";
import type { RouteDeps } from "./http/routes/route-deps.js";
import type { RouteHandlers } from "./http/routes/route-handler.js";
import { usageRoutes } from "./http/routes/usage.js";
import { wasteReportHandlers } from "./http/routes/waste-report.js";
import { webReportPlugin } from "./http/web/web-report-plugin.js";
import { submissionHoldFromConfig } from "./intelligence/alerts/actions/actions-from-config.js";
import { alertMonitorFromConfig } from "./intelligence/alerts/alerts-from-config.js";
import { digestSenderFromConfig } from "./intelligence/alerts/digest/digest-from-config.js";
import { IntelligenceService } from "./intelligence/intelligence-service.js";
import type { IntelligenceServiceOptions } from "./intelligence/service-options.js";
import type { TokenVerifier } from "./platform/identity/principal.js";
import { serverVerifiers } from "./platform/identity/server-verifiers.js";
import { LicenceMonitor } from "./platform/licence/licence-monitor.js";
import { httpsServerOptions, loadTlsMaterial } from "./platform/tls.js";
import { reloadTlsOnChange } from "./platform/tls-reload.js";
import { toJobsightError } from "./to-jobsight-error.js";
import { SERVER_VERSION } from "./version.js";

/** Options of {@link buildApp}. */
export type BuildAppOptions = {
  /** The parsed configuration (see `parseServerConfig`). */
  config: ServerConfig;
  /** Storage opened by the caller (not closed with the app); default: opened from `config.postgres`. @default undefined */
  storage?: DataPlaneStorage;
  /** Object store made by the caller (not closed with the app); default: from `config.objectStore`. @default undefined */
  objectStore?: ObjectStore;
  /** More token verifiers (e.g. OIDC), tried after the API tokens. @default [] */
  verifiers?: readonly TokenVerifier[];
  /**
   * Handlers of further operations of the route table (predictions, policy, diagnosis…), by
   * operationId; they may replace the data plane's own. Operations without a handler answer 501.
   * @default {}
   */
  handlers?: RouteHandlers | ((deps: RouteDeps) => RouteHandlers);
  /**
   * Back-pressure shared by every ingest path; pass the one the OTLP receivers use so REST and OTLP
   * batches count against the same limit. @default new IngestGate(config.ingest.maxConcurrentBatches)
   */
  ingestGate?: IngestGate;
  /**
   * The intelligence plane: a running service, options to start one with this app's storage and
   * object store (stopped with the app), or `false`/absent for a data-plane-only app.
   * @default undefined
   */
  intelligence?: IntelligenceService | Omit<IntelligenceServiceOptions, "storage" | "objectStore"> | false;
  /** fastify logger option; default: pino at `config.http.logLevel`. @default undefined */
  logger?: FastifyServerOptions["logger"];
  /**
   * How the licence is checked. Only tests pass `publicKeys` (licences they signed themselves)
   * or a clock; the server verifies against the vendor key built into it.
   * @default {}
   */
  licence?: { publicKeys?: readonly JWK[]; now?: () => Date; nodeCount?: () => Promise<number> };
};

/**
 * Builds the Jobsight server app without listening: plugins (errors, rate limits, PostgreSQL,
 * object store, auth) and every route of the route table. Tests call `app.inject()`; `main.ts`
 * calls `app.listen()`.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config: parseServerConfig({ postgres: { url } }) });
 * const res = await app.inject({ method: "GET", url: "/healthz" });
 * await app.close();
 * ```
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  // HTTPS when certificates are configured; read before anything opens so a bad path fails fast.
  const tls = config.tls ? await loadTlsMaterial(config.tls) : undefined;
  const app = Fastify({
    ...(tls ? { https: httpsServerOptions(tls) } : {}),
    logger: options.logger ?? {
      level: config.http.logLevel,
      redact: ["req.headers.authorization", "req.headers.cookie"],
    },
    bodyLimit: config.http.bodyLimitBytes,
    requestTimeout: config.http.requestTimeoutMs,
    pluginTimeout: 180_000,
    forceCloseConnections: "idle",
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Errors fastify answers before routing (malformed escapes, over-long parameters) get the
    // ApiError shape too.
    frameworkErrors: (error, _request, reply) => {
      sendApiError(reply, toJobsightError(error));
    },
  });

  if (tls && config.tls) {
    // Renewed certificates (cert-manager rewrites the mounted Secret) are served without a restart.
    const reload = reloadTlsOnChange(app.server as unknown as TlsServer, config.tls, {
      log: app.log.child({ component: "tls" }),
    });
    app.addHook("onClose", async () => reload.stop());
  }
  registerJsonBodyParser(app);
  await app.register(errorHandlerPlugin, { bodyLimitBytes: config.http.bodyLimitBytes });
  await app.register(
    postgresPlugin,
    options.storage
      ? { storage: options.storage }
      : {
          open: {
            url: config.postgres.url,
            embeddedDir: join(config.dataDir, "postgres"),
            embeddedPort: config.postgres.embeddedPort,
            embeddedBinDir: config.postgres.embeddedBinDir,
            poolSize: config.postgres.poolSize,
            statementTimeoutMs: config.postgres.statementTimeoutMs,
            migrate: config.postgres.migrate,
            timescale: config.postgres.timescale,
            policies: {
              retentionDays: config.ingest.retentionDays,
              compressAfterDays: config.ingest.compressAfterDays,
            },
          },
        },
  );
  // After the pool: the counts of every replica on the database limit together.
  await app.register(rateLimitPlugin, { ...config.rateLimit, pool: app.storage.pool });
  // Several replicas on one database: one leads the scheduled work, all hear of a promoted model.
  await app.register(replicasPlugin, {});
  await app.register(
    objectStorePlugin,
    options.objectStore ? { store: options.objectStore } : { config: config.objectStore },
  );
  const verifiers = serverVerifiers({
    tokens: config.auth.tokens,
    store: app.storage.tokens,
    oidc: config.oidc,
  });
  await app.register(authPlugin, {
    verifiers: [...verifiers, ...(options.verifiers ?? [])],
    withoutToken: admissionCaller(config.admission),
  });
  const licenceOptions = options.licence ?? {};
  await app.register(licenceStatusPlugin, {
    monitor: await LicenceMonitor.load({
      config: config.licence,
      ...licenceOptions,
      nodeCount: licenceOptions.nodeCount ?? (() => reportingNodes(app.storage.pool)),
      log: app.log.child({ component: "licence" }),
    }),
  });

  const deps: RouteDeps = {
    storage: app.storage,
    objectStore: app.objectStore,
    ingestGate: options.ingestGate ?? new IngestGate(config.ingest.maxConcurrentBatches),
    version: SERVER_VERSION,
    licence: () => app.licence.status(),
  };
  const holdSubmission = submissionHoldFromConfig(config.alerts, app.storage);
  if (holdSubmission) deps.holdSubmission = holdSubmission;
  let service: IntelligenceService | undefined;
  let model: ReturnType<typeof modelReadiness> | undefined;
  if (options.intelligence instanceof IntelligenceService) {
    service = options.intelligence;
    model = modelReadiness(service);
  } else if (options.intelligence) {
    service = new IntelligenceService({
      ...options.intelligence,
      storage: app.storage,
      objectStore: app.objectStore,
      log: options.intelligence.log ?? app.log.child({ component: "intelligence" }),
      isLeader: options.intelligence.isLeader ?? (() => app.leadership.isLeader),
    });
    const started = service;
    const startup = started.start();
    startup.catch((error) => app.log.error({ err: error }, "intelligence plane failed to start"));
    model = modelReadiness(started, startup);
    // preClose: recorded predictions are written before the pool closes.
    app.addHook("preClose", async () => {
      await started.stop();
    });
  }
  if (service) {
    const listening = service;
    app.sharedChanges.on((change) => void listening.reloadShared(change));
  }
  const pool = app.storage.pool;
  await app.register(serverMetricsPlugin, {
    leader: () => app.leadership.isLeader,
    licence: () => app.licence.status().state,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ...(service ? { model: () => ({ version: service.activeVersion, mode: service.mode().mode }) } : {}),
  });
  const extra = typeof options.handlers === "function" ? options.handlers(deps) : (options.handlers ?? {});
  registerApiRoutes(
    app,
    {
      ...healthRoutes(deps, { model }),
      ...jobRoutes(deps),
      ...usageRoutes(deps),
      ...eventRoutes(deps),
      ...artifactRoutes(deps),
      ...clusterRoutes(deps),
      ...adminHandlers(deps),
      ...wasteReportHandlers(deps, { rates: config.cost }),
      ...alertRoutes(deps),
      ...alertPreferenceRoutes(deps),
      ...alertActionRoutes(deps),
      ...metricsRoutes(app.metrics),
      ...(service ? intelligenceHandlers(deps, service) : {}),
      ...extra,
    },
    { rawBodyLimitBytes: config.ingest.artifactMaxBytes },
  );
  // Live alerts (issue #27): evaluated in the background, stopped before the pool closes.
  const alerts = alertMonitorFromConfig(config.alerts, app.storage, app.log.child({ component: "alerts" }));
  alerts?.start();
  if (alerts) app.addHook("preClose", () => alerts.stop());
  const digests = digestSenderFromConfig(
    config.alerts,
    app.storage,
    app.log.child({ component: "digest" }),
    config.cost,
  );
  digests?.start();
  if (digests) app.addHook("preClose", () => digests.stop());
  // The report's pages hold no data (every figure comes from the authenticated API), so they are
  // served without a token.
  await app.register(webReportPlugin);
  return app;
}
