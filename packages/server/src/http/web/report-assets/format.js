// Number, size, duration and time formats shared by every page. Times are shown in UTC, as in the
// schedulers' and kernels' own logs.

const BINARY = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

export function formatBytes(bytes) {
  if (bytes === undefined || bytes === null || !Number.isFinite(bytes)) return "–";
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BINARY.length - 1) {
    value /= 1024;
    unit++;
  }
  const sign = bytes < 0 ? "−" : "";
  const digits = value >= 100 || unit === 0 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, "");
  return `${sign}${digits} ${BINARY[unit]}`;
}

export function formatNumber(value, digits = 1) {
  if (value === undefined || value === null || !Number.isFinite(value)) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(digits)} M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(digits)} k`;
  if (abs >= 100 || Number.isInteger(value)) return value.toFixed(0);
  return value.toFixed(digits);
}

export function formatPercent(share, digits = 1) {
  if (share === undefined || share === null || !Number.isFinite(share)) return "–";
  return `${(share * 100).toFixed(digits)} %`;
}

export function formatDuration(seconds) {
  if (seconds === undefined || seconds === null || !Number.isFinite(seconds)) return "–";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  const hours = Math.floor(m / 60);
  if (hours < 48) return `${hours} h ${String(m % 60).padStart(2, "0")} min`;
  return `${(hours / 24).toFixed(1)} d`;
}

/** A duration in one unit, for axes: `42 s`, `16.7 min`, `2.8 h`, `3.1 d`. */
export function formatDurationShort(seconds) {
  if (seconds === undefined || seconds === null || !Number.isFinite(seconds)) return "–";
  const trim = (v) => (v >= 10 ? v.toFixed(0) : v.toFixed(1).replace(/\.0$/, ""));
  if (seconds < 60) return `${trim(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${trim(seconds / 3600)} h`;
  return `${trim(seconds / 86_400)} d`;
}

/** `2026-12-01 10:04:05 UTC` from an RFC 3339 time. */
export function formatTime(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** `10:04:05` (UTC) from an RFC 3339 time. */
export function formatClock(iso) {
  return iso ? new Date(iso).toISOString().slice(11, 19) : "–";
}

/** Seconds since the epoch, as uPlot takes time. */
export function toEpochSeconds(iso) {
  return Date.parse(iso) / 1000;
}

/** A value in a resource's unit (bytes, cores, devices, seconds) in words. */
export function formatResource(resource, value) {
  if (resource === "memory" || resource === "gpuMemory") return formatBytes(value);
  if (resource === "walltime") return formatDuration(value);
  if (resource === "gpus") return `${formatNumber(value, 0)} GPU`;
  return `${formatNumber(value)} cores`;
}

export const RESOURCE_LABELS = {
  memory: "Memory",
  cores: "CPU cores",
  gpus: "GPUs",
  gpuMemory: "GPU memory",
  walltime: "Walltime",
};
