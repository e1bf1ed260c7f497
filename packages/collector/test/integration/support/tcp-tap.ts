import { type AddressInfo, createServer, connect as dial, type Socket } from "node:net";

/**
 * A TCP hop in front of the server's OTLP/gRPC port that keeps every byte the collector sends,
 * so a test can see which names went over the wire (gRPC sends them uncompressed by default).
 */
export async function startTap(target: string) {
  const { hostname, port } = new URL(target);
  const sent: Buffer[] = [];
  const sockets = new Set<Socket>();
  const tap = createServer((client) => {
    const upstream = dial(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy()).on("close", () => sockets.delete(socket));
    }
    client.on("data", (d: Buffer) => sent.push(d));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => tap.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(tap.address() as AddressInfo).port}`,
    /** Whether the collector sent `text` as a whole protobuf string field (tag 1: a name or key). */
    sentField: (text: string) =>
      Buffer.concat(sent).includes(Buffer.from(`\x0a${String.fromCharCode(text.length)}${text}`)),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => tap.close(() => resolve()));
    },
  };
}
