import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/** Result of {@link ensureChromium}: a browser to launch, or why there is none. */
export type ChromiumResult =
  | { ok: true; executablePath: string; version: string; installed: boolean; ms: number }
  | { ok: false; reason: string; ms: number };

/** Options of {@link ensureChromium}. */
export type EnsureChromiumOptions = {
  /** The browser to look for (and to expect after installing). @default "/usr/bin/chromium" */
  executablePath?: string;
  /** Install the Debian package when the browser is missing. @default true */
  install?: boolean;
};

/**
 * Makes sure Debian's Chromium is installed: a quick `chromium --version` when it is, otherwise
 * (as root, with apt-get) `apt-get update` and `apt-get install -y --no-install-recommends chromium`,
 * which takes a minute or two on a fresh machine. Never downloads a browser build of its own.
 *
 * @example
 * ```ts
 * const chromium = await ensureChromium();
 * if (!chromium.ok) console.warn(`no browser tests: ${chromium.reason}`);
 * ```
 */
export async function ensureChromium(options: EnsureChromiumOptions = {}): Promise<ChromiumResult> {
  const startedAt = performance.now();
  const ms = () => Math.round(performance.now() - startedAt);
  const executablePath = options.executablePath ?? DEBIAN_CHROMIUM;
  const present = await browserVersion(executablePath);
  if (present.ok) return { ok: true, executablePath, version: present.output, installed: false, ms: ms() };
  if (process.platform !== "linux")
    return { ok: false, reason: `needs Linux, this is ${process.platform}`, ms: ms() };
  if (options.install === false) return { ok: false, reason: `${executablePath} is missing`, ms: ms() };
  if (process.getuid?.() !== 0) {
    return {
      ok: false,
      reason: "Chromium is missing and only root can install it (apt-get install chromium)",
      ms: ms(),
    };
  }
  if (!(await onPath("apt-get")))
    return { ok: false, reason: "Chromium is missing and there is no apt-get", ms: ms() };

  // Another test file (or a person) may hold the dpkg lock: wait for it rather than fail.
  const apt = ["-o", "DPkg::Lock::Timeout=300", "-q"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = await run("apt-get", [...apt, "update"], env);
  if (!update.ok) return { ok: false, reason: `apt-get update failed: ${tail(update.output)}`, ms: ms() };
  const install = await run("apt-get", [...apt, "install", "-y", "--no-install-recommends", "chromium"], env);
  if (!install.ok)
    return { ok: false, reason: `apt-get install chromium failed: ${tail(install.output)}`, ms: ms() };
  const after = await browserVersion(executablePath);
  if (!after.ok)
    return {
      ok: false,
      reason: `installed, yet ${executablePath} does not run: ${tail(after.output)}`,
      ms: ms(),
    };
  return { ok: true, executablePath, version: after.output, installed: true, ms: ms() };
}

/**
 * {@link ensureChromium} for a test file: the browser, or `undefined` with the reason printed, so
 * the file can skip. Under CI (`CI` set) a missing browser is an error instead: CI runs as root
 * with apt, so a skip there would only hide a broken set-up.
 *
 * @example
 * ```ts
 * const chromium = await chromiumForTests();
 * describe.skipIf(!chromium)("report pages", () => { ... });
 * ```
 */
export async function chromiumForTests(options: EnsureChromiumOptions = {}): Promise<string | undefined> {
  const result = await ensureChromium(options);
  if (result.ok) return result.executablePath;
  if (process.env.CI) throw new Error(`Browser tests need Chromium under CI: ${result.reason}`);
  console.warn(`Skipping browser tests: ${result.reason}`);
  return undefined;
}

async function browserVersion(path: string): Promise<{ ok: boolean; output: string }> {
  try {
    await access(path, constants.X_OK);
  } catch {
    return { ok: false, output: `${path} not found` };
  }
  const result = await run(path, ["--version"], process.env);
  // Debian's wrapper script may print shell noise before the browser's own line.
  const lines = result.output.trim().split("\n");
  return { ok: result.ok, output: result.ok ? (lines[lines.length - 1] ?? "") : result.output.trim() };
}

async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    try {
      await access(`${dir}/${command}`, constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: string[] = [];
    const keep = (chunk: Buffer) => {
      chunks.push(chunk.toString("utf8"));
      if (chunks.length > 200) chunks.shift();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) => resolve({ ok: false, output: error.message }));
    child.on("close", (code) => resolve({ ok: code === 0, output: chunks.join("") }));
  });
}

function tail(output: string): string {
  return output.trim().split("\n").slice(-3).join(" | ");
}
