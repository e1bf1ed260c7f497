// A stand-in for the data plane's JSON ingest (POST /v1/usage, /v1/events, /v1/jobs) until the
// server's ingest routes exist: it stores each batch once per idempotency key, durably (one
// fsynced JSON line per batch), and answers only after that, as the real data plane promises.
// argv: <port> <storeFile>. Prints "listening <port>" when ready.
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:http";

const [portArg, store] = process.argv.slice(2);
const keys = new Set();
if (existsSync(store)) {
  for (const line of readFileSync(store, "utf8").split("\n")) if (line) keys.add(JSON.parse(line).key);
}
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.method !== "POST" || !["/v1/usage", "/v1/events", "/v1/jobs"].includes(req.url)) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== "Bearer it-token") {
      res.writeHead(401).end();
      return;
    }
    const key = req.headers["idempotency-key"];
    const parsed = JSON.parse(body);
    const items = parsed.samples ?? parsed.events ?? parsed.records ?? [];
    const duplicate = keys.has(key);
    if (!duplicate) {
      appendFileSync(store, `${JSON.stringify({ key, path: req.url, items })}\n`);
      const fd = openSync(store, "r+");
      fsyncSync(fd);
      closeSync(fd);
      keys.add(key);
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ accepted: duplicate ? 0 : items.length, duplicates: duplicate ? items.length : 0 }),
    );
  });
});
server.listen(Number(portArg), "127.0.0.1", () => console.log(`listening ${server.address().port}`));
