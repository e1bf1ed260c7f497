// Turns a job's usage samples into the job page's chart series: memory with its limit, CPU cores
// in use (from the cumulative CPU time), GPU utilisation and GPU memory, one line per node (and GPU).
import { COLORS, PALETTE } from "./charts.js";
import { toEpochSeconds } from "./format.js";

/**
 * `{ x, memory, cpu, gpu, gpuMemory }`: a shared time axis (epoch seconds) and the series of each
 * chart (`[{ label, values, color, dash? }]`, null where a line has no reading). Whole-job samples
 * are used when there are any; otherwise each step is a line of its own.
 */
export function jobSeries(samples, job) {
  const whole = samples.filter((s) => !s.step);
  const used = whole.length > 0 ? whole : samples;
  const x = [...new Set(used.map((s) => toEpochSeconds(s.time)))].sort((a, b) => a - b);
  const at = new Map(x.map((t, i) => [t, i]));
  const lines = groupBy(used, (s) => (s.step ? `${s.node}/${s.step}` : s.node));
  const single = lines.size === 1;
  const name = (base, key) => (single ? base : `${base} ${key}`);
  const empty = () => new Array(x.length).fill(null);
  const out = { x, memory: [], cpu: [], gpu: [], gpuMemory: [] };

  let li = 0;
  for (const [key, list] of lines) {
    const color = single ? COLORS.blue : PALETTE[li++ % PALETTE.length];
    const current = empty();
    const limit = empty();
    const cores = empty();
    let previous;
    for (const s of list) {
      const i = at.get(toEpochSeconds(s.time));
      if (s.memory) {
        current[i] = s.memory.currentBytes;
        limit[i] = s.memory.limitBytes ?? null;
      }
      if (s.cpu && previous?.cpu) {
        const seconds = (Date.parse(s.time) - Date.parse(previous.time)) / 1000;
        const busy = s.cpu.usageSeconds - previous.cpu.usageSeconds;
        // A counter that went back means a new cgroup: no rate across it.
        if (seconds > 0 && busy >= 0) cores[i] = busy / seconds;
      }
      if (s.cpu) previous = s;
    }
    if (current.some((v) => v !== null))
      out.memory.push({ label: name("in use", key), values: current, color });
    if (limit.some((v) => v !== null)) {
      out.memory.push({
        label: name("limit", key),
        values: limit,
        color: COLORS.red,
        dash: [8, 4],
        width: 2,
      });
    }
    if (cores.some((v) => v !== null))
      out.cpu.push({ label: name("cores in use", key), values: cores, color: single ? COLORS.green : color });
    gpuLines(list, key, single, at, empty, out);
  }
  addRequestLines(out, job, empty);
  return out;
}

// Two MIG instances of one GPU share its index; each is a line of its own.
function gpuName(g) {
  if (!g.mig) return `GPU ${g.index}`;
  const profile = g.mig.profile ? ` ${g.mig.profile}` : "";
  return `GPU ${g.index} MIG${profile} (GI ${g.mig.gpuInstanceId})`;
}

function gpuLines(list, key, single, at, empty, out) {
  const gpus = new Map();
  for (const s of list) {
    for (const g of s.gpus ?? []) {
      const id = g.mig ? `${g.index}/${g.mig.gpuInstanceId}` : `${g.index}`;
      if (!gpus.has(id))
        gpus.set(id, {
          index: g.index,
          gi: g.mig?.gpuInstanceId ?? -1,
          name: gpuName(g),
          util: empty(),
          memory: empty(),
        });
      const line = gpus.get(id);
      const i = at.get(toEpochSeconds(s.time));
      line.util[i] = g.utilizationPercent;
      line.memory[i] = g.memoryUsedBytes;
    }
  }
  for (const line of [...gpus.values()].sort((a, b) => a.index - b.index || a.gi - b.gi)) {
    const label = single ? line.name : `${key} ${line.name}`;
    const color = PALETTE[(out.gpu.length + 0) % PALETTE.length];
    out.gpu.push({ label, values: line.util, color });
    out.gpuMemory.push({ label, values: line.memory, color });
  }
}

// Without a cgroup limit, what the job asked for is the line to compare with.
function addRequestLines(out, job, empty) {
  const requested = job?.spec?.requested ?? {};
  const constant = (value) => empty().map(() => value);
  if (
    !out.memory.some((s) => s.label.startsWith("limit")) &&
    requested.memoryBytes &&
    out.memory.length > 0
  ) {
    out.memory.push({
      label: "requested",
      values: constant(requested.memoryBytes),
      color: COLORS.grey,
      dash: [6, 4],
    });
  }
  const cores = job?.allocated?.cores ?? requested.cores;
  if (cores && out.cpu.length > 0) {
    out.cpu.push({ label: "requested cores", values: constant(cores), color: COLORS.grey, dash: [6, 4] });
  }
}

function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const k = key(item);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(item);
  }
  return groups;
}
