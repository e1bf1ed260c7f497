import {
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
} from "@kubernetes/client-node";
import { type Logger, silentLogger } from "../../log/logger.js";
import { Backoff, type BackoffOptions } from "../../ship/backoff.js";

/** Options of {@link ResilientWatch}. */
export type ResilientWatchOptions<T extends KubernetesObject> = {
  /** What is watched, for logs, e.g. `pods in ml`. */
  what: string;
  kubeConfig: KubeConfig;
  /** API path of the collection, e.g. `/api/v1/pods`. */
  path: string;
  /** Lists the collection (the typed client's list call, with the same selector). */
  list: () => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  /** Back-off between failed lists or watches. @default 1 s doubling to 60 s */
  backoff?: BackoffOptions;
  /** Called after each successful list. */
  onList?: () => void;
  /** Called for each failed list or watch (then retried). */
  onError?: (error: unknown) => void;
  logger?: Logger;
};

/**
 * An informer that never gives up. `@kubernetes/client-node`'s informer lists, watches from the
 * list's `resourceVersion`, relists by itself after `410 Gone` and watches again when the server
 * ends a watch; any other failure (a dropped connection, 5xx, a refused list) stops it. This
 * restarts it after a back-off with jitter, resuming from the last version it saw, and resets the
 * back-off as soon as anything arrives again.
 *
 * @example
 * ```ts
 * const pods = new ResilientWatch({ what: "pods", kubeConfig, path: "/api/v1/pods", list: () => api.listPodForAllNamespaces() });
 * pods.on("add", (pod) => console.log(pod.metadata?.name));
 * pods.start();
 * ```
 */
export class ResilientWatch<T extends KubernetesObject> {
  private readonly o: ResilientWatchOptions<T>;
  private readonly informer: Informer<T> & ObjectCache<T>;
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private retry: NodeJS.Timeout | undefined;
  private stopped = true;
  private errors = 0;

  constructor(options: ResilientWatchOptions<T>) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
    this.backoff = new Backoff(options.backoff);
    const listed = async () => {
      const result = await options.list();
      options.onList?.();
      this.backoff.succeed();
      this.log.debug("listed", {
        what: options.what,
        items: result.items.length,
        resourceVersion: result.metadata?.resourceVersion,
      });
      return result;
    };
    this.informer = makeInformer<T>(options.kubeConfig, options.path, listed, options.labelSelector);
    this.informer.on("error", (error) => this.failed(error));
  }

  /** Call `cb` for each object added, updated or deleted (a throwing callback is the caller's to catch). */
  on(verb: "add" | "update" | "delete", cb: (object: T) => void): void {
    this.informer.on(verb, (object) => {
      // Something arrived: the watch works again, the next failure starts back-off afresh.
      this.backoff.succeed();
      cb(object);
    });
  }

  /** Whether the last list or watch failed and none has connected since. */
  get failing(): boolean {
    return this.backoff.failures > 0;
  }

  /** The objects currently known. */
  list(): ReadonlyArray<T> {
    return this.informer.list();
  }

  /** Start listing and watching in the background. */
  start(): void {
    this.stopped = false;
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.informer.stop().catch(() => {});
  }

  private run(): void {
    if (this.stopped) return;
    // start() resolves once the watch is connected, and also after a failure it has already
    // reported: only the first is a success.
    const before = this.errors;
    this.informer.start().then(
      () => {
        if (this.errors === before) this.backoff.succeed();
      },
      (error: unknown) => this.failed(error),
    );
  }

  private failed(error: unknown): void {
    // Stopping aborts the watch, which reports that as an error: not one.
    if (this.stopped) return;
    this.errors++;
    this.o.onError?.(error);
    const delayMs = this.backoff.fail();
    this.log.warn("Kubernetes watch failed; retrying", { what: this.o.what, error, delayMs });
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.run(), delayMs);
    this.retry.unref?.();
  }
}
