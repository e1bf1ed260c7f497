import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Agent } from "node:https";
import { ConfigError, type ConfigProblem, type ScrapeError } from "../../errors.js";
import { type Logger, silentLogger } from "../../log/logger.js";
import type { ScrapeAuth } from "./prometheus-endpoint.js";

/** Options of {@link KubeletAuth}. */
export type KubeletAuthOptions = {
  /**
   * File of the bearer token sent to the kubelet, normally the pod's service account token
   * (`/var/run/secrets/kubernetes.io/serviceaccount/token`); re-read before every scrape since the
   * kubelet rotates projected tokens. @default no token (the read-only port 10255 needs none)
   */
  tokenFile?: string;
  /** PEM file of the CA(s) that sign the kubelet's serving certificate. @default the CAs Node.js trusts */
  caFile?: string;
  /** Accept any kubelet certificate (self-signed serving certificates); warned about once. @default false */
  insecureSkipVerify?: boolean;
  /** Told once when the token file stops being readable (the last token read is still sent). @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log; never given the token. @default silent */
  logger?: Logger;
};

// What OpenSSL and Node.js's name check say when a certificate cannot be trusted (Node.js tls docs, "X509 certificate error codes").
const UNTRUSTED = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "INVALID_CA",
]);
const WRONG_NAME = new Set(["ERR_TLS_CERT_ALTNAME_INVALID", "HOSTNAME_MISMATCH"]);
const OUT_OF_DATE = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);
const RBAC =
  'RBAC get on nodes/metrics (a ClusterRole rule: apiGroups [""], resources ["nodes/metrics"], verbs ["get"])';

async function readToken(file: string): Promise<string> {
  const token = (await readFile(file, "utf8")).trim();
  if (!token) throw new Error("the file is empty");
  return token;
}

function readCa(file: string): string[] {
  const blocks = readFileSync(file, "utf8").match(
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g,
  );
  if (!blocks) throw new Error("holds no PEM certificate");
  // Node.js's TLS takes a corrupt CA silently and then trusts nothing: parse each one here instead.
  for (const pem of blocks) new X509Certificate(pem);
  return blocks;
}

/**
 * How the collector scrapes the kubelet's authenticated port (`https://<node>:10250/metrics/cadvisor`)
 * as Prometheus's `kubernetes_sd` node jobs do: the service account's bearer token, read afresh
 * before each scrape (kept from the last good read when the file cannot be read), and the kubelet's
 * certificate checked against `caFile`. A 401, 403 or untrusted certificate is explained with what
 * to fix. Files unreadable at construction throw one {@link ConfigError} naming the settings.
 *
 * @example
 * ```ts
 * const auth = new KubeletAuth({
 *   tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
 *   caFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
 * });
 * new PrometheusEndpoint({ url: "https://10.0.0.5:10250/metrics/cadvisor", name: "cAdvisor", auth });
 * ```
 */
export class KubeletAuth implements ScrapeAuth {
  readonly agent: Agent | undefined;
  private readonly tokenFile: string | undefined;
  private readonly caFile: string | undefined;
  private readonly onUnavailable: (message: string) => void;
  private readonly log: Logger;
  private token = "";
  private tokenFailing = false;
  private reportedToken = false;

  constructor(options: KubeletAuthOptions = {}) {
    this.tokenFile = options.tokenFile;
    this.caFile = options.caFile;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.log = options.logger ?? silentLogger;
    const problems: ConfigProblem[] = [];
    let ca: string[] | undefined;
    if (this.tokenFile) {
      try {
        this.token = readFileSync(this.tokenFile, "utf8").trim();
        if (!this.token) throw new Error("the file is empty");
      } catch (error) {
        const message = `cannot read ${this.tokenFile}: ${(error as Error).message}`;
        problems.push({ path: "prometheus.cadvisorTokenFile", message });
      }
    }
    if (this.caFile) {
      try {
        ca = readCa(this.caFile);
      } catch (error) {
        const message = `cannot read ${this.caFile}: ${(error as Error).message}`;
        problems.push({ path: "prometheus.cadvisorCaFile", message });
      }
    }
    if (problems.length > 0) throw new ConfigError(problems);
    const insecure = options.insecureSkipVerify === true;
    if (insecure)
      this.log.warn(
        "the kubelet's certificate is not verified (prometheus.cadvisorInsecureSkipVerify): anyone able to answer on its address can feed the collector figures and learn its token",
      );
    // keepAlive: one TLS handshake per kubelet, not one per round.
    this.agent =
      ca || insecure ? new Agent({ keepAlive: true, ca, rejectUnauthorized: !insecure }) : undefined;
  }

  /** The `authorization` header of the next scrape, the token re-read; never rejects. */
  async headers(): Promise<Record<string, string>> {
    if (!this.tokenFile) return {};
    try {
      this.token = await readToken(this.tokenFile);
      if (this.tokenFailing)
        this.log.info("the kubelet token file is readable again", { file: this.tokenFile });
      this.tokenFailing = false;
    } catch (error) {
      if (!this.tokenFailing) {
        const message = `cannot read the kubelet token file ${this.tokenFile}: ${(error as Error).message}; sending the token read before`;
        this.log.warn(message);
        if (!this.reportedToken) this.onUnavailable(message);
        this.reportedToken = true;
      }
      this.tokenFailing = true;
    }
    return { authorization: `Bearer ${this.token}` };
  }

  /** What to fix after a refused scrape (401, 403) or a kubelet certificate that could not be trusted. */
  explain(error: ScrapeError): string | undefined {
    const token = this.tokenFile ? `the token of ${this.tokenFile}` : undefined;
    if (error.status === 401)
      return token
        ? `the kubelet did not accept ${token} (expired, or not a token its API server knows); its service account needs ${RBAC}`
        : `the kubelet wants a bearer token: set prometheus.cadvisorTokenFile (--cadvisor-token-file) to a service account token, the account granted ${RBAC}`;
    if (error.status === 403)
      return token
        ? `the service account of ${token} may not read the kubelet's metrics: it needs ${RBAC}`
        : `the kubelet refuses anonymous scrapes: set prometheus.cadvisorTokenFile (--cadvisor-token-file) to the token of a service account granted ${RBAC}`;
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    if (typeof code !== "string") return undefined;
    const fix = `give the CA that signs the kubelet's serving certificate with --cadvisor-ca-file, or turn verification off with --cadvisor-insecure-skip-tls-verify`;
    const trust = this.caFile ? `the CA of ${this.caFile}` : "the CAs Node.js trusts";
    if (UNTRUSTED.has(code)) return `the kubelet's certificate is not signed by ${trust} (${code}): ${fix}`;
    if (WRONG_NAME.has(code))
      return `the kubelet's certificate does not name the address scraped (${code}): ${fix}`;
    if (OUT_OF_DATE.has(code)) return `the kubelet's certificate is out of date (${code})`;
    return undefined;
  }
}
