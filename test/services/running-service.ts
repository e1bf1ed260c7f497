/** A server the global setup is responsible for: how to reach it, and how to stop it and clean up. */
export type RunningService<T> = {
  info: T;
  /** Stops the server and deletes its temp folder; a no-op for servers given by environment. */
  stop: () => Promise<void>;
};
