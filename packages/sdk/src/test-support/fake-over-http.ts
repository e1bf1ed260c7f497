import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeJobsightServer } from "../testing/fake-server.js";

/** Serve a fake server's `fetch` on a real 127.0.0.1 port, for a CLI run as a child process. */
export async function serveOverHttp(fake: FakeJobsightServer) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.entries(req.headers).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, String(v)] as [string, string]],
    );
    try {
      const response = await fake.fetch(`${fake.baseUrl}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
