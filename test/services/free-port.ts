import { createServer } from "node:net";

/**
 * Asks the kernel for a port that is free on 127.0.0.1 right now.
 *
 * Needed for servers that cannot listen on port 0 and report back (PostgreSQL takes its port on
 * the command line). Another process may grab the port before it is used, so callers retry.
 *
 * @example
 * const port = await findFreePort();
 */
export async function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
