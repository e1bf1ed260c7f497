import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Server as TlsServer } from "node:tls";
import { httpsServerOptions, loadTlsMaterial, type TlsMaterial, type TlsOptions } from "./tls.js";

/** Options of {@link reloadTlsOnChange}. */
export type TlsReloadOptions = {
  /** How often the files are read again, in milliseconds. @default 30000 */
  intervalMs?: number;
  /** Told about each reload and each rotation that could not be loaded yet. */
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Called with the new material after each reload (health, metrics). */
  onReload?: (material: TlsMaterial) => void;
};

/**
 * Serves rotated certificates without a restart: reads the certificate, key and CA files every
 * `intervalMs` and, when their bytes changed, checks them like at start and puts them in force
 * for new connections (`server.setSecureContext`, or a function given the new material, for
 * listeners that are not a Node TLS server, such as gRPC's). cert-manager and the kubelet replace a
 * Secret's files in place, so the webhook keeps answering across a renewal. A half-written
 * rotation (a key that is not the certificate's yet) keeps the old material until the next tick.
 *
 * @example
 * ```ts
 * const reload = reloadTlsOnChange(app.server, config.tls, { log: app.log });
 * app.addHook("onClose", async () => reload.stop());
 * ```
 */
export function reloadTlsOnChange(
  server: Pick<TlsServer, "setSecureContext"> | ((material: TlsMaterial) => void),
  files: TlsOptions,
  options: TlsReloadOptions = {},
): { stop(): void; check(): Promise<boolean> } {
  let last: string | undefined;
  let running = false;
  const digest = async () => {
    const hash = createHash("sha256");
    for (const file of [files.certFile, files.keyFile, files.caFile]) {
      if (file) hash.update(await readFile(file)).update("\u0000");
    }
    return hash.digest("hex");
  };
  const first = digest().then(
    (d) => {
      last ??= d;
    },
    () => undefined,
  );
  // Resolves true when new material was put in force.
  const check = async (): Promise<boolean> => {
    await first;
    if (running) return false;
    running = true;
    try {
      const now = await digest();
      if (now === last) return false;
      const material = await loadTlsMaterial(files);
      if (typeof server === "function") server(material);
      else server.setSecureContext(httpsServerOptions(material));
      last = now;
      options.log?.info(
        { subject: material.subject, notAfter: material.notAfter },
        "TLS certificate reloaded",
      );
      options.onReload?.(material);
      return true;
    } catch (error) {
      options.log?.warn(
        { err: String(error) },
        "TLS files changed but cannot be loaded yet; keeping the old ones",
      );
      return false;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), options.intervalMs ?? 30_000);
  timer.unref();
  return { stop: () => clearInterval(timer), check };
}
