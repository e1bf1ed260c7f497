import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";

/** The collections the fake serves. */
export type FakeResource = "pods" | "events";

type KubeObject = {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
};
type Change = { rv: number; type: "ADDED" | "MODIFIED" | "DELETED"; object: KubeObject };
type OpenWatch = {
  resource: FakeResource;
  namespace?: string;
  selector?: string;
  res: ServerResponse;
};

/** One request the fake answered. */
export type FakeRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization?: string;
};

const LIST_KIND: Record<FakeResource, string> = { pods: "PodList", events: "EventList" };
const ROUTE = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?(pods|events)$/;

/** Equality-based label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`), enough for tests. */
function matches(selector: string | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return true;
  return selector.split(",").every((req) => {
    const r = req.trim();
    const ne = r.indexOf("!=");
    if (ne > 0) return labels[r.slice(0, ne)] !== r.slice(ne + 2);
    const eq = r.indexOf("=");
    if (eq > 0) return labels[r.slice(0, eq)] === r.slice(r[eq + 1] === "=" ? eq + 2 : eq + 1);
    if (r.startsWith("!")) return !(r.slice(1) in labels);
    return r in labels;
  });
}

/**
 * A local HTTP server that speaks enough of the Kubernetes API for the collector's pod and event
 * watches: `GET /api/v1[/namespaces/<ns>]/{pods,events}` lists with a `resourceVersion`, and with
 * `?watch=true` streams newline-delimited `{"type":…,"object":…}` from the given version. Tests
 * change objects (`apply`, `remove`), compact history so old versions answer `410 Gone`
 * (`expire`), send bookmarks, and drop every open watch (`dropWatches`).
 *
 * @example
 * ```ts
 * const api = new FakeKubeApi();
 * const kc = await api.start();
 * api.apply("pods", pod);
 * ```
 */
export class FakeKubeApi {
  readonly requests: FakeRequest[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly objects: Record<FakeResource, Map<string, KubeObject>> = {
    pods: new Map(),
    events: new Map(),
  };
  private readonly history: Record<FakeResource, Change[]> = { pods: [], events: [] };
  private readonly watches = new Set<OpenWatch>();
  private rv = 1000;
  /** Versions up to this one are compacted away: watching from them answers 410 Gone. */
  private compactedRv = 0;
  /** Answer the next list or watch requests with this status. */
  failNext: { count: number; status: number } = { count: 0, status: 500 };

  /** Start on 127.0.0.1 and a free port; returns a KubeConfig pointing at it with a bearer token. */
  async start(): Promise<KubeConfig> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "collector", token: "fake-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "collector" }],
      currentContext: "fake",
    });
    return kc;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Current resourceVersion of the store. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Create or update an object (a copy is stored, with a new `resourceVersion`). */
  apply(resource: FakeResource, object: unknown): void {
    const o = structuredClone(object) as KubeObject;
    o.metadata.resourceVersion = String(++this.rv);
    const key = `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    const type = this.objects[resource].has(key) ? "MODIFIED" : "ADDED";
    this.objects[resource].set(key, o);
    this.publish(resource, { rv: this.rv, type, object: o });
  }

  /** Delete an object; watchers get `DELETED` with its last state. */
  remove(resource: FakeResource, object: unknown): void {
    const o = structuredClone(object) as KubeObject;
    const key = `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    this.objects[resource].delete(key);
    o.metadata.resourceVersion = String(++this.rv);
    this.publish(resource, { rv: this.rv, type: "DELETED", object: o });
  }

  /**
   * Compact history as etcd does: every open watch gets an `ERROR` event with a `410 Gone`
   * Status and is closed, and watching from any version up to now answers the same.
   */
  expire(): void {
    this.compactedRv = this.rv;
    for (const w of this.watches) this.gone(w.res, Number.NaN);
    this.watches.clear();
  }

  /** Send a `BOOKMARK` with the current version to every open watch. */
  bookmark(): void {
    for (const w of this.watches) {
      const kind = w.resource === "pods" ? "Pod" : "Event";
      w.res.write(
        `${JSON.stringify({ type: "BOOKMARK", object: { kind, apiVersion: "v1", metadata: { resourceVersion: String(this.rv) } } })}\n`,
      );
    }
  }

  /** Cut every open watch connection at the socket, as a failing load balancer would. */
  dropWatches(): void {
    for (const w of this.watches) w.res.socket?.destroy();
    this.watches.clear();
  }

  /** Open watches now. */
  get openWatches(): number {
    return this.watches.size;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private publish(resource: FakeResource, change: Change): void {
    this.history[resource].push(change);
    for (const w of this.watches) {
      if (w.resource !== resource || !this.visible(w, change.object)) continue;
      w.res.write(`${JSON.stringify({ type: change.type, object: change.object })}\n`);
    }
  }

  private visible(w: { namespace?: string; selector?: string }, o: KubeObject): boolean {
    return (!w.namespace || o.metadata.namespace === w.namespace) && matches(w.selector, o.metadata.labels);
  }

  private gone(res: ServerResponse, asked: number): void {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `too old resource version: ${Number.isNaN(asked) ? this.compactedRv - 1 : asked} (${this.compactedRv})`,
      reason: "Expired",
      code: 410,
    };
    res.end(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://x");
    const query = Object.fromEntries(url.searchParams);
    this.requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query,
      authorization: req.headers.authorization,
    });
    const route = ROUTE.exec(url.pathname);
    if (req.method !== "GET" || !route) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "NotFound",
          code: 404,
        }),
      );
      return;
    }
    if (this.failNext.count > 0) {
      this.failNext.count--;
      res.writeHead(this.failNext.status, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: this.failNext.status }),
      );
      return;
    }
    const resource = route[2] as FakeResource;
    const w = { namespace: route[1], selector: query.labelSelector };
    if (query.watch === "true") {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      res.flushHeaders();
      const from = Number(query.resourceVersion || this.rv);
      if (from < this.compactedRv) {
        this.gone(res, from);
        return;
      }
      for (const change of this.history[resource]) {
        if (change.rv > from && this.visible(w, change.object))
          res.write(`${JSON.stringify({ type: change.type, object: change.object })}\n`);
      }
      const open: OpenWatch = { resource, ...w, res };
      this.watches.add(open);
      res.on("close", () => this.watches.delete(open));
      return;
    }
    const items = [...this.objects[resource].values()]
      .filter((o) => this.visible(w, o))
      // List items carry no kind or apiVersion; the list does.
      .map(
        ({ apiVersion: _a, kind: _k, ...rest }: KubeObject & { apiVersion?: string; kind?: string }) => rest,
      );
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        kind: LIST_KIND[resource],
        apiVersion: "v1",
        metadata: { resourceVersion: String(this.rv) },
        items,
      }),
    );
  }
}
