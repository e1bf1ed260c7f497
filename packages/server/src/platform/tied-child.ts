import { existsSync } from "node:fs";

// A copy, adapted, of the collector's guard (packages/collector/src/util/tied-child.ts): the
// import rules leave no package both may import that is the place for it (schemas holds wire
// contracts, otel-bridge the OTLP mapping). Here the stop signal and the wait before the last
// signal are the caller's, since PostgreSQL must be asked with SIGINT (fast shutdown), not SIGTERM.

/** Signals a guard may send its command. */
export type GuardSignal = "INT" | "TERM" | "QUIT" | "KILL";

/** Options of {@link tiedCommand}. */
export type TiedCommandOptions = {
  /** Sent when the parent dies, and in place of SIGHUP, SIGINT and SIGTERM sent to the guard. @default "TERM" */
  stopSignal?: GuardSignal;
  /** Seconds the command has to stop after the parent died before {@link lastSignal}. @default 2 */
  graceSeconds?: number;
  /** Sent once the grace is over if the command still runs; also passed on when the guard gets SIGQUIT. @default "KILL" */
  lastSignal?: GuardSignal;
};

function guard(stop: GuardSignal, graceSeconds: number, last: GuardSignal): string {
  const grace = Math.max(0, Math.ceil(graceSeconds));
  return `exec 3<&0 </dev/null
c=
trap '[ -n "$c" ] && kill -${stop} $c 2>/dev/null' HUP INT TERM
trap '[ -n "$c" ] && kill -${last} $c 2>/dev/null' QUIT
"$0" "$@" 3<&- &
c=$!
{ while read -r _ <&3; do :; done; kill -${stop} $c; i=0; while kill -0 $c && [ $i -lt ${grace} ]; do sleep 1; i=$((i+1)); done; kill -${last} $c; } >/dev/null 2>&1 &
w=$!
exec 3<&-
while :; do wait $c; s=$?; kill -0 $c 2>/dev/null || break; done
kill $w 2>/dev/null
exit $s`;
}

let hasShell: boolean | undefined;

/** The executable and arguments of a command spawned through {@link tiedCommand}. */
export type TiedCommand = { file: string; args: string[] };

/**
 * Wraps `command args` so that it dies with this process, even one killed with SIGKILL (Node has
 * no PR_SET_PDEATHSIG): a `/bin/sh` guard runs the command and, when its stdin pipe from us
 * closes, sends it `stopSignal`, then `lastSignal` if it still runs after the grace. Spawn the
 * returned file and arguments with stdin a pipe and never write to it. Signals sent to the guard
 * are passed on (HUP, INT, TERM as `stopSignal`; QUIT as `lastSignal`), and the guard exits with
 * the command's status (127: not found). Without `/bin/sh` the command is returned as it is.
 *
 * @example
 * ```ts
 * const { file, args } = tiedCommand("postgres", ["-D", dataDir], { stopSignal: "INT", lastSignal: "QUIT" });
 * const child = spawn(file, args, { stdio: ["pipe", "ignore", "ignore"], detached: true });
 * ```
 */
export function tiedCommand(command: string, args: string[], options: TiedCommandOptions = {}): TiedCommand {
  hasShell ??= existsSync("/bin/sh");
  if (!hasShell) return { file: command, args };
  const script = guard(options.stopSignal ?? "TERM", options.graceSeconds ?? 2, options.lastSignal ?? "KILL");
  return { file: "/bin/sh", args: ["-c", script, command, ...args] };
}
