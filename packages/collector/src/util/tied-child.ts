import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";

// Node lacks PR_SET_PDEATHSIG and nvidia-smi ignores stdin: a sh guard kills it when our pipe to it closes.
const GUARD = `exec 3<&0 </dev/null
c=
trap '[ -n "$c" ] && kill $c 2>/dev/null' HUP INT TERM
"$0" "$@" 3<&- &
c=$!
{ while read -r _ <&3; do :; done; kill $c; sleep 2; kill -9 $c; } >/dev/null 2>&1 &
w=$!
exec 3<&-
while :; do wait $c; s=$?; kill -0 $c 2>/dev/null || break; done
kill $w 2>/dev/null
exit $s`;

let hasShell: boolean | undefined;

/** The executable and arguments of a command spawned through {@link tiedCommand}. */
export type TiedCommand = { file: string; args: string[] };

/**
 * Wrap `command args` so that it dies with the collector: spawn the returned file and arguments
 * with stdin a pipe (`stdio[0] === "pipe"`, as `execFile` does) and never write to it. The guard
 * also passes SIGTERM/SIGINT/SIGHUP on to the command, and exits with its status (127: not found).
 * Without `/bin/sh` (Windows, a distroless image) the command is returned as it is.
 *
 * @example
 * ```ts
 * const { file, args } = tiedCommand("nvidia-smi", ["-lms", "10000"]);
 * const child = trackChild(spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] }));
 * ```
 */
export function tiedCommand(command: string, args: string[]): TiedCommand {
  hasShell ??= existsSync("/bin/sh");
  if (!hasShell) return { file: command, args };
  return { file: "/bin/sh", args: ["-c", GUARD, command, ...args] };
}

const live = new Set<ChildProcess>();
let hooked = false;

/**
 * Kill `child` when this process exits (`process.exit`, the end of the event loop, an uncaught
 * error): faster than waiting for the guard to see its stdin close. Returns the child.
 *
 * @example
 * ```ts
 * const child = trackChild(spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] }));
 * ```
 */
export function trackChild<T extends ChildProcess>(child: T): T {
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const c of live) c.kill("SIGTERM");
    });
  }
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.once("error", () => live.delete(child));
  return child;
}
