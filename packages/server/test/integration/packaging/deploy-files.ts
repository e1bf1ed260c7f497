// Readers of the deployment files the packaging test runs: just enough of the Dockerfile and
// systemd unit syntax for the files this repository ships (continuation lines, comments, JSON-form
// ENTRYPOINT, `ENV key=value` pairs, repeated unit keys), failing loudly on anything else.

/** One Dockerfile instruction: its keyword (upper case) and its arguments as written. */
export type DockerInstruction = { keyword: string; args: string };

/** One build stage: its base image, its name (`AS …`) and its instructions. */
export type DockerStage = { from: string; name?: string; instructions: DockerInstruction[] };

/** Stages of a Dockerfile, in order; `ARG`s before the first `FROM` are substituted into `FROM`. */
export function parseDockerfile(text: string): DockerStage[] {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (pending !== "" && line.trimStart().startsWith("#")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push((pending + line).trim());
    pending = "";
  }
  const globalArgs = new Map<string, string>();
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const match = /^(\w+)\s+(.*)$/s.exec(line);
    if (!match) throw new Error(`Dockerfile line not understood: ${line}`);
    const keyword = match[1].toUpperCase();
    const args = match[2].replace(/\s+/g, " ").trim();
    if (keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`FROM not understood: ${args}`);
      const image = from[1].replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => globalArgs.get(a ?? b) ?? "");
      stages.push({ from: image, ...(from[2] ? { name: from[2] } : {}), instructions: [] });
    } else if (stages.length === 0) {
      if (keyword !== "ARG") throw new Error(`${keyword} before the first FROM`);
      const [name, value = ""] = args.split("=", 2);
      globalArgs.set(name, value);
    } else {
      stages[stages.length - 1].instructions.push({ keyword, args });
    }
  }
  return stages;
}

/** The stage named `name`, or the last stage (the image) without a name. */
export function dockerStage(stages: DockerStage[], name?: string): DockerStage {
  const stage = name === undefined ? stages[stages.length - 1] : stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage ${name}`);
  return stage;
}

/** The arguments of each `keyword` instruction of a stage. */
export function instructions(stage: DockerStage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** `ENV a=1 b=2` instructions of a stage as one record, later ones winning; `$NAME` kept as written. */
export function dockerEnv(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of instructions(stage, "ENV")) {
    for (const pair of args.split(" ")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new Error(`ENV pair not understood (only key=value): ${pair}`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1).replace(/^"(.*)"$/, "$1");
    }
  }
  return env;
}

/** The exec (JSON) form of an `ENTRYPOINT` or `CMD`; the shell form is refused (it breaks signals). */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string")) {
    throw new Error(`not an exec-form array: ${args}`);
  }
  return parsed;
}

/** Sources and destination of a `COPY` (or `ADD`), with its `--from` stage if any. */
export function parseCopy(args: string): { from?: string; sources: string[]; destination: string } {
  const words = args.split(" ");
  let from: string | undefined;
  while (words[0]?.startsWith("--")) {
    const flag = words.shift()!;
    if (flag.startsWith("--from=")) from = flag.slice("--from=".length);
  }
  const destination = words.pop();
  if (!destination || words.length === 0) throw new Error(`COPY not understood: ${args}`);
  return { ...(from ? { from } : {}), sources: words, destination };
}

/** A systemd unit file: section → key → values (keys may repeat, e.g. `Environment=`). */
export type SystemdUnit = Map<string, Map<string, string[]>>;

/** Reads an INI-style unit file; comments and blank lines skipped, continuation lines joined. */
export function parseSystemdUnit(text: string): SystemdUnit {
  const unit: SystemdUnit = new Map();
  let section: Map<string, string[]> | undefined;
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = (pending + raw.trim()).trim();
    pending = "";
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.endsWith("\\")) {
      pending = `${line.slice(0, -1)} `;
      continue;
    }
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = new Map();
      unit.set(header[1], section);
      continue;
    }
    const eq = line.indexOf("=");
    if (!section || eq <= 0) throw new Error(`unit line not understood: ${line}`);
    const key = line.slice(0, eq).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return unit;
}

/** The single value of `key` in `section`; throws when it is missing or set twice. */
export function unitValue(unit: SystemdUnit, section: string, key: string): string {
  const values = unit.get(section)?.get(key) ?? [];
  if (values.length !== 1) throw new Error(`[${section}] ${key} is set ${values.length} times`);
  return values[0];
}

/** `Environment=` assignments of the `[Service]` section as one record. */
export function unitEnvironment(unit: SystemdUnit): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of unit.get("Service")?.get("Environment") ?? []) {
    for (const pair of value.split(" ")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new Error(`Environment= pair not understood: ${pair}`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}
