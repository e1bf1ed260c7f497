import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Heap limits of the threads that train. Training allocates short-lived arrays at a high rate, and
 * V8 would grow each thread's young generation to 48 MB for them without training any faster; 12 MB
 * (4 MB semi-spaces), with {@link collectBetweenPhases}, keeps LANL-CM5's training under 300 MB
 * (docs/performance.md).
 */
export const TRAINING_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 } as const;

/** {@link TRAINING_THREAD_LIMITS} as the node flag of a process that trains on its main thread. */
export const TRAINING_SEMI_SPACE_FLAG = `--max-semi-space-size=${TRAINING_THREAD_LIMITS.maxYoungGenerationSizeMb / 3}`;

let fullCollection: (() => void) | null | undefined;

/**
 * Runs a full garbage collection between the phases of a training (a resource's feature table, its
 * ensembles): each phase leaves tens of megabytes of old-generation garbage that V8 would otherwise
 * collect only after the next phase had grown the heap again (docs/performance.md). A no-op where
 * the engine refuses.
 *
 * @example
 * ```ts
 * collectBetweenPhases();
 * const table = buildFeatureTable(jobs, spec);
 * ```
 */
export function collectBetweenPhases(): void {
  if (fullCollection === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    try {
      if (!exposed) setFlagsFromString("--expose-gc");
      // A new context gets `gc` once the flag is set; the process's own global stays as it was.
      fullCollection = exposed ?? (runInNewContext("gc") as () => void);
    } catch {
      fullCollection = null;
    }
  }
  fullCollection?.();
}
