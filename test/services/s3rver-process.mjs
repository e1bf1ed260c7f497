// Runs s3rver in its own Node process so it can have `--openssl-legacy-provider`: s3rver encrypts
// ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 refuses without it, and the
// flag must not leak into the test workers. Started by s3-server.ts through fork():
//   argv[2] = directory for the buckets. Reports `{ type: "listening", port }` over IPC, exits on
//   SIGTERM/SIGINT or as soon as the parent goes away (IPC disconnect), so it can never outlive it.
import S3rver from "s3rver";

const directory = process.argv[2];
if (!directory) {
  console.error("usage: s3rver-process.mjs <directory>");
  process.exit(2);
}

const server = new S3rver({ address: "127.0.0.1", port: 0, directory, silent: true });

let closing = false;
function shutdown() {
  if (closing) return;
  closing = true;
  // The AWS SDK keeps sockets alive; close them or httpServer.close() waits for their timeout.
  server.httpServer?.closeAllConnections?.();
  server.close().then(
    () => process.exit(0),
    () => process.exit(0),
  );
  setTimeout(() => process.exit(0), 2000).unref();
}

process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.on("disconnect", shutdown);

try {
  const address = await server.run();
  process.send?.({ type: "listening", port: address.port });
} catch (error) {
  process.send?.({ type: "error", message: String(error?.stack ?? error) });
  process.exit(1);
}
