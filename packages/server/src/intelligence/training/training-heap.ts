/**
 * Heap limits of the threads that train. Training allocates short-lived arrays at a high rate, and
 * V8 would grow each thread's young generation to 48 MB for them without training any faster; 12 MB
 * (4 MB semi-spaces) keeps LANL-CM5's training under 300 MB (docs/performance.md).
 */
export const TRAINING_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 } as const;

/** {@link TRAINING_THREAD_LIMITS} as the node flag of a process that trains on its main thread. */
export const TRAINING_SEMI_SPACE_FLAG = `--max-semi-space-size=${TRAINING_THREAD_LIMITS.maxYoungGenerationSizeMb / 3}`;
