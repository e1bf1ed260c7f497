import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  createMetricsServiceImplementation,
  decodeExportMetricsHttpBody,
  type ExportMetricsServiceRequest,
  type ExportMetricsServiceResponse,
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
  metricsServiceDefinition,
  OtlpDecodeError,
  otlpHttpEncoding,
} from "../../src/index.js";

/** What a test receiver saw. */
export interface Received {
  requests: ExportMetricsServiceRequest[];
  decodeErrors: OtlpDecodeError[];
  contentTypes: string[];
}

/** A receiver that answers every export with a fixed response. */
export interface TestReceiver extends Received {
  url: string;
  close(): Promise<void>;
}

/** A real grpc-js server on 127.0.0.1:<random> serving MetricsService/Export with our codec. */
export async function startGrpcReceiver(
  respond: (request: ExportMetricsServiceRequest) => ExportMetricsServiceResponse = () => ({}),
): Promise<TestReceiver> {
  const seen: Received = { requests: [], decodeErrors: [], contentTypes: [] };
  const server = new grpc.Server();
  server.addService(
    metricsServiceDefinition,
    createMetricsServiceImplementation({
      onExport: (request) => {
        seen.requests.push(request);
        return respond(request);
      },
      onDecodeError: (error) => seen.decodeErrors.push(error),
    }),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    ...seen,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A plain node:http OTLP/HTTP receiver on 127.0.0.1:<random> for POST /v1/metrics. */
export async function startHttpReceiver(
  respond: (request: ExportMetricsServiceRequest) => ExportMetricsServiceResponse = () => ({}),
): Promise<TestReceiver> {
  const seen: Received = { requests: [], decodeErrors: [], contentTypes: [] };
  const server: Server = createServer(async (req, res) => {
    const contentType = req.headers["content-type"] ?? "";
    seen.contentTypes.push(contentType);
    const body = await readBody(req);
    try {
      const request = decodeExportMetricsHttpBody(body, contentType);
      seen.requests.push(request);
      const response = respond(request);
      if (otlpHttpEncoding(contentType) === "json") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(encodeExportMetricsResponseJson(response));
      } else {
        res
          .writeHead(200, { "content-type": "application/x-protobuf" })
          .end(encodeExportMetricsResponse(response));
      }
    } catch (error) {
      if (!(error instanceof OtlpDecodeError)) throw error;
      seen.decodeErrors.push(error);
      res.writeHead(400, { "content-type": "text/plain" }).end(`${error.code}: ${error.message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...seen,
    url: `http://127.0.0.1:${port}/v1/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
