import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the worker module `name` that sits beside `base` (an `import.meta.url`): the built
 * `name.js` (tsup puts each worker entry beside each bundle that starts it), or `name.ts`
 * through tsx when running the TypeScript sources (development and tests). Undefined when
 * neither can start.
 *
 * @example
 * ```ts
 * const worker = startModuleWorker("training-worker", import.meta.url);
 * ```
 */
export function startModuleWorker(
  name: string,
  base: string,
  options: WorkerOptions = {},
): Worker | undefined {
  const js = new URL(`./${name}.js`, base);
  if (existsSync(fileURLToPath(js))) return new Worker(js, options);
  const ts = new URL(`./${name}.ts`, base);
  if (!existsSync(fileURLToPath(ts))) return undefined;
  let api: string;
  try {
    // tsx's ESM entry; the CommonJS one cannot register hooks for an ES module worker.
    api = createRequire(base)
      .resolve("tsx/esm/api")
      .replace(/index\.cjs$/, "index.mjs");
  } catch {
    return undefined;
  }
  const code = `import(${JSON.stringify(pathToFileURL(api).href)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
