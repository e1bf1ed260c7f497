import type { ConfigProblem } from "../errors.js";
import type { CollectorConfig } from "./collector-config.js";

/**
 * The problems of the kubelet scrape's token and TLS settings: each needs an `https`
 * `prometheus.cadvisorUrl` (a token over plain http would travel in clear text), and a CA file
 * contradicts turning verification off. Whether the files can be read is checked at start.
 *
 * @example
 * ```ts
 * cadvisorAuthProblems({ cadvisorTokenFile: "/t", cadvisorInsecureSkipVerify: false });
 * // [{ path: "prometheus.cadvisorTokenFile", message: "needs prometheus.cadvisorUrl" }]
 * ```
 */
export function cadvisorAuthProblems(p: CollectorConfig["prometheus"]): ConfigProblem[] {
  const given = (
    [
      ["prometheus.cadvisorTokenFile", p.cadvisorTokenFile !== undefined],
      ["prometheus.cadvisorCaFile", p.cadvisorCaFile !== undefined],
      ["prometheus.cadvisorInsecureSkipVerify", p.cadvisorInsecureSkipVerify],
    ] as const
  )
    .filter(([, set]) => set)
    .map(([path]) => path);
  if (given.length === 0) return [];
  if (!p.cadvisorUrl) return given.map((path) => ({ path, message: "needs prometheus.cadvisorUrl" }));
  let protocol: string;
  try {
    protocol = new URL(p.cadvisorUrl).protocol;
  } catch {
    return []; // the URL rule reports it
  }
  const problems: ConfigProblem[] = [];
  if (protocol !== "https:")
    for (const path of given)
      problems.push({
        path,
        message:
          path === "prometheus.cadvisorTokenFile"
            ? "would send the token in clear text: scrape the kubelet's https port (https://<node IP>:10250/metrics/cadvisor)"
            : "applies to an https prometheus.cadvisorUrl only",
      });
  if (p.cadvisorCaFile !== undefined && p.cadvisorInsecureSkipVerify)
    problems.push({
      path: "prometheus.cadvisorInsecureSkipVerify",
      message: "give either cadvisorCaFile or cadvisorInsecureSkipVerify, not both",
    });
  return problems;
}
