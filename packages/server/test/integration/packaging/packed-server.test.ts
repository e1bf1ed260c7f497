// The server as a site installs it. The Dockerfile's own build-stage `pnpm pack` and install-stage
// `npm i` run in a temporary folder standing in for the image's filesystem (its paths mapped under
// it; the build stage's folder is this repository, built by `pnpm build`), with third-party
// dependencies from the npm registry. From that install: `npx jobsight-server serve`, as a site
// running it by hand would; the image's ENTRYPOINT with its ENV, user and data folder; and the
// systemd unit's command line. Docker itself does not run here.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFlagOptions } from "../../../src/config/serve-flags.js";
import {
  dockerEnv,
  dockerStage,
  execForm,
  instructions,
  parseCopy,
  parseDockerfile,
  parseSystemdUnit,
  unitEnvironment,
  unitValue,
} from "./deploy-files.js";
import { ImageRoot } from "./image-root.js";
import { isAlive, type Serving, startServing, waitGone } from "./serve-process.js";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../../../../", import.meta.url));
const dockerfile = join(repo, "packages/server/deploy/Dockerfile");
const dockerignore = `${dockerfile}.dockerignore`;
const unitFile = join(repo, "examples/deploy/systemd/jobsight-server.service");
const stages = parseDockerfile(readFileSync(dockerfile, "utf8"));
const buildStage = dockerStage(stages, "build");
const installStage = dockerStage(stages, "install");
const image = dockerStage(stages);
const workdir = (stage: typeof image) => instructions(stage, "WORKDIR").at(-1)!;
const imageEnv = dockerEnv(image);
const PLATFORM_TOKEN = "platform-packed-token-000001";
// The server's workspace dependencies: each must be packed and installed beside it.
const serverManifest = JSON.parse(readFileSync(join(repo, "packages/server/package.json"), "utf8"));
const workspaceDeps = Object.keys(serverManifest.dependencies).filter((d) => d.startsWith("@jobsight/"));

const exitOf = (child: Serving["child"]) =>
  new Promise<number | null>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode);
    else child.once("exit", (code) => done(code));
  });

async function checkServes(s: Serving, token?: string): Promise<void> {
  const health = await fetch(`${s.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: "ok", version: serverManifest.version });
  const ready = await fetch(`${s.url}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toMatchObject({ status: "ok", checks: { postgres: "ok", objectStore: "ok" } });
  const anonymous = await fetch(`${s.url}/v1/jobs`);
  expect(anonymous.status).toBe(401);
  expect(await anonymous.json()).toMatchObject({ code: "UNAUTHENTICATED" });
  if (token) {
    const listed = await fetch(`${s.url}/v1/jobs`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ items: [], nextCursor: null });
  }
}

/** After a stop: the server and its PostgreSQL gone, PostgreSQL's lock file removed (a clean stop). */
async function expectStopped(s: Serving, dataDir: string): Promise<void> {
  expect(await waitGone(s.serverPid, 60_000)).toBe(true);
  expect(await waitGone(s.postgresPid, 30_000)).toBe(true);
  expect(existsSync(join(dataDir, "postgres", "data", "postmaster.pid"))).toBe(false);
  expect(s.output.join("\n")).toContain("shutting down: finishing in-flight requests");
  expect(s.output.join("\n")).not.toMatch(/shutdown (timed out|failed)/);
}

describe("the Dockerfile's inputs", () => {
  it("copies from the build context only files that exist and that its ignore file lets through", () => {
    const ignored = readFileSync(dockerignore, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    // Built from sources: nothing the host installed or built may go in.
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist", ".git"]));
    const isIgnored = (path: string) =>
      ignored.some((p) => (p.startsWith("**/") ? path.split("/").includes(p.slice(3)) : path === p));
    const copies = stages.flatMap((s) => instructions(s, "COPY").map(parseCopy)).filter((c) => !c.from);
    expect(copies.length).toBeGreaterThan(0);
    for (const source of copies.flatMap((c) => c.sources)) {
      expect({ source, exists: existsSync(join(repo, source)), ignored: isIgnored(source) }).toEqual({
        source,
        exists: true,
        ignored: false,
      });
    }
    // What the later stages copy is what the earlier ones make (checked by running them below).
    expect(instructions(installStage, "COPY").map(parseCopy)).toEqual([
      { from: "build", sources: ["/packs/"], destination: "/packs/" },
    ]);
    expect(instructions(image, "COPY").map(parseCopy)).toEqual([
      { from: "install", sources: [`${workdir(installStage)}/`], destination: `${workdir(installStage)}/` },
    ]);
  });

  it("builds with the repository's pnpm on Node 24 LTS and runs as an unprivileged user", () => {
    const rootManifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    const pnpm = (rootManifest.packageManager as string).replace(/^pnpm@/, "");
    expect(instructions(buildStage, "RUN")).toContain(`npm i -g pnpm@${pnpm}`);
    expect(new Set(stages.map((s) => s.from))).toEqual(new Set(["node:24-bookworm-slim"]));
    const user = instructions(image, "USER");
    expect(user).toEqual(["10001:10001"]);
    expect(instructions(image, "RUN").join(" ")).toMatch(/useradd --system --uid 10001 --gid jobsight /);
    // The data folder is the volume, the working folder and the server's dataDir.
    expect(imageEnv.JOBSIGHT_DATA_DIR).toBe("/var/lib/jobsight");
    expect(instructions(image, "VOLUME").map((v) => JSON.parse(v))).toEqual([[imageEnv.JOBSIGHT_DATA_DIR]]);
    expect(workdir(image)).toBe(imageEnv.JOBSIGHT_DATA_DIR);
    expect(imageEnv.PATH.split(":")[0]).toBe(`${workdir(installStage)}/node_modules/.bin`);
  });
});

describe("the server packed and installed as the Dockerfile does it", () => {
  let tmp: string;
  let root: ImageRoot;
  let installDir: string;
  const running: Serving[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "jobsight-packed-"));
    // As root, the embedded PostgreSQL (and the image's user below) run as another user.
    await chmod(tmp, 0o755);
    root = new ImageRoot(tmp, ["/packs", workdir(installStage), imageEnv.JOBSIGHT_DATA_DIR], {
      image: workdir(buildStage),
      host: repo,
    });
    const pack = instructions(buildStage, "RUN").find((r) => r.includes(" pack "));
    expect(pack, "the build stage packs the packages").toBeDefined();
    await root.runStep(pack!, workdir(buildStage), dockerEnv(buildStage), 120_000);
    // The install stage starts from an empty folder, as `npm i <tarballs>` at a site does.
    installDir = root.path(workdir(installStage));
    await mkdir(installDir, { recursive: true });
    const npmInstall = instructions(installStage, "RUN");
    expect(npmInstall).toHaveLength(1);
    await root.runStep(npmInstall[0], workdir(installStage), dockerEnv(installStage), 360_000);
  }, 420_000);

  afterAll(async () => {
    for (const s of running) {
      if (isAlive(s.serverPid)) process.kill(s.serverPid, "SIGKILL");
      if (isAlive(s.postgresPid)) process.kill(s.postgresPid, "SIGQUIT");
    }
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it("packs every workspace package the server needs, with versions for workspace ranges", async () => {
    const packs = await readdir(root.path("/packs"));
    const packed = (name: string) =>
      packs.find((f) => f.startsWith(`${name.replace("@", "").replace("/", "-")}-`));
    for (const name of ["@jobsight/server", ...workspaceDeps]) expect(packed(name), name).toBeDefined();
    const installed = JSON.parse(
      await readFile(join(installDir, "node_modules/@jobsight/server/package.json"), "utf8"),
    );
    expect(installed.private).toBeUndefined();
    for (const dep of workspaceDeps) expect(installed.dependencies[dep]).toMatch(/^\d+\.\d+\.\d+/);
    // What the server reads at run time came along, and the repository-bound demo did not.
    const dist = join(installDir, "node_modules/@jobsight/server/dist");
    const migrations = (
      await readdir(join(repo, "packages/server/src/data-plane/storage/migrations"))
    ).filter((f) => f.endsWith(".sql"));
    expect((await readdir(join(dist, "migrations"))).sort()).toEqual(migrations.sort());
    for (const file of [
      "main.js",
      "training-worker.js",
      "otlp-decode-worker.js",
      "report-assets/index.html",
    ]) {
      expect(existsSync(join(dist, file)), file).toBe(true);
    }
    expect(existsSync(join(dist, "demo"))).toBe(false);
    const { publint } = await import("publint");
    const { messages } = await publint({
      pkgDir: join(repo, "packages/server"),
      level: "warning",
      pack: "pnpm",
    });
    expect(messages).toEqual([]);
  });

  it("serves with `npx jobsight-server serve` from the install folder and stops on SIGTERM", async () => {
    const dir = join(tmp, "by-hand");
    const dataDir = join(dir, "data");
    await mkdir(dir);
    const config = join(dir, "server.json");
    await writeFile(
      config,
      JSON.stringify({
        dataDir,
        auth: { tokens: [{ token: PLATFORM_TOKEN, role: "platform", user: "ops" }] },
      }),
      { mode: 0o600 },
    );
    // --no: run the installed bin, never fetch a package of that name from the registry.
    const ports = ["--port", "0", "--otlp-grpc-port", "0", "--otlp-http-port", "0"];
    const s = await startServing("npx", ["--no", "jobsight-server", "serve", "--config", config, ...ports], {
      cwd: installDir,
      env: { ...process.env, npm_config_update_notifier: "false" },
      // Its own process group: a terminal's Ctrl-C or a supervisor signals the group, as here.
      detached: true,
    });
    running.push(s);
    await checkServes(s, PLATFORM_TOKEN);
    const exited = exitOf(s.child);
    process.kill(-s.child.pid!, "SIGTERM");
    await expectStopped(s, dataDir);
    await exited;
  }, 180_000);

  it("starts from the image's ENTRYPOINT, ENV, USER and data folder, and exits 0 on SIGTERM", async () => {
    const entrypoint = execForm(instructions(image, "ENTRYPOINT").at(-1)!);
    expect(instructions(image, "CMD")).toEqual([]);
    // tini (PID 1: forwards signals, reaps) is not installed here; it runs its one child as is.
    const dashes = entrypoint.indexOf("--");
    expect(entrypoint.slice(0, dashes)).toEqual(["/usr/bin/tini"]);
    const [command, ...args] = entrypoint.slice(dashes + 1);
    expect([command, args[0]]).toEqual(["jobsight-server", "serve"]);
    // Tests listen on loopback only, on ports they pick: the image's 0.0.0.0 replaced, ports added.
    const bound = parseArgs({ args: args.slice(1), options: serveFlagOptions(), strict: true }).values;
    expect({ host: bound.host, otlpHost: bound["otlp-host"] }).toEqual({
      host: "0.0.0.0",
      otlpHost: "0.0.0.0",
    });
    const local = args.map((a) => (a === "0.0.0.0" ? "127.0.0.1" : a));
    const ports = ["--port", "0", "--otlp-grpc-port", "0", "--otlp-http-port", "0"];

    // The image's user has no account here: as root, run as `nobody`, to whom (as in the image)
    // only the data folder is writable, which stands in for a read-only root filesystem.
    const asRoot = process.getuid?.() === 0;
    const ids = asRoot
      ? {
          uid: Number((await run("id", ["-u", "nobody"])).stdout),
          gid: Number((await run("id", ["-g", "nobody"])).stdout),
        }
      : undefined;
    const dataDir = root.path(imageEnv.JOBSIGHT_DATA_DIR);
    // As the image's `install -d -o jobsight -m 0700`: folders above it stay open to traverse.
    await mkdir(dirname(dataDir), { recursive: true, mode: 0o755 });
    await mkdir(dataDir, { mode: 0o700 });
    if (ids) await chown(dataDir, ids.uid, ids.gid);
    const env = {
      ...Object.fromEntries(Object.entries(imageEnv).map(([k, v]) => [k, root.path(v)])),
      PATH: root.searchPath(imageEnv.PATH),
      HOME: dataDir,
    };
    const s = await startServing(command, [...local, ...ports], {
      cwd: root.path(workdir(image)),
      env,
      ...(ids ?? {}),
    });
    running.push(s);
    await checkServes(s);
    expect(s.output.join("\n")).toContain(`initialising PostgreSQL in ${join(dataDir, "postgres", "data")}`);
    const exited = exitOf(s.child);
    s.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expectStopped(s, dataDir);
  }, 180_000);

  it("has a systemd unit that runs the installed bin as its own user, writing only its state folder", async () => {
    const unit = parseSystemdUnit(readFileSync(unitFile, "utf8"));
    const [bin, subcommand, ...flags] = unitValue(unit, "Service", "ExecStart").split(" ");
    // The image's layout: the same folder and bin on a host.
    expect(bin).toBe(`${workdir(installStage)}/node_modules/.bin/jobsight-server`);
    const serverDir = join(installDir, "node_modules/@jobsight/server");
    const installedBin = JSON.parse(await readFile(join(serverDir, "package.json"), "utf8")).bin[
      "jobsight-server"
    ];
    expect(await realpath(root.path(bin))).toBe(resolve(serverDir, installedBin));
    expect(subcommand).toBe("serve");
    const { values } = parseArgs({ args: flags, options: serveFlagOptions(), strict: true });
    expect(values.config).toMatch(/^\/etc\/jobsight\//);

    const service = (key: string) => unitValue(unit, "Service", key);
    expect(service("User")).not.toBe("root");
    expect(service("Group")).toBe(service("User"));
    const dataDir = unitEnvironment(unit).JOBSIGHT_DATA_DIR;
    expect(dataDir).toBe(imageEnv.JOBSIGHT_DATA_DIR);
    expect(`/var/lib/${service("StateDirectory")}`).toBe(dataDir);
    expect(service("StateDirectoryMode")).toBe("0700");
    expect(service("WorkingDirectory")).toBe(dataDir);
    expect(service("ReadWritePaths").split(" ")).toEqual([dataDir]);
    expect(service("EnvironmentFile")).toMatch(/^\/etc\/jobsight\/[\w.-]+\.env$/);
    expect({
      ProtectSystem: service("ProtectSystem"),
      NoNewPrivileges: service("NoNewPrivileges"),
      ProtectHome: service("ProtectHome"),
      PrivateTmp: service("PrivateTmp"),
      CapabilityBoundingSet: service("CapabilityBoundingSet"),
      KillSignal: service("KillSignal"),
    }).toEqual({
      ProtectSystem: "strict",
      NoNewPrivileges: "true",
      ProtectHome: "true",
      PrivateTmp: "true",
      CapabilityBoundingSet: "",
      KillSignal: "SIGTERM",
    });

    // Where systemd's own checker is installed, it reads the unit (ExecStart moved to the install).
    const analyze = await run("systemd-analyze", ["--version"]).catch(() => undefined);
    if (!analyze) return;
    const copy = join(tmp, "unit", "jobsight-server.service");
    await mkdir(dirname(copy));
    await writeFile(
      copy,
      readFileSync(unitFile, "utf8").replace(`ExecStart=${bin}`, `ExecStart=${root.path(bin)}`),
    );
    const verified = await run("systemd-analyze", ["verify", copy]);
    expect(verified.stderr).toBe("");
    const security = await run("systemd-analyze", ["security", "--offline=true", copy]).catch(
      () => undefined,
    );
    const exposure = /Overall exposure level for jobsight-server\.service: ([\d.]+)/.exec(
      security?.stdout ?? "",
    );
    // systemd before 250 has no --offline: nothing to compare.
    if (exposure) expect(Number(exposure[1])).toBeLessThan(3);
  });
});
