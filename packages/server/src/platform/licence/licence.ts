import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CompactSign, type CryptoKey, compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { SecurityConfigError } from "../security-config-error.js";
import { LICENCE_PUBLIC_KEYS } from "./licence-public-key.js";

/** The JWS `typ` of a licence, so that nothing else the vendor signs can pass for one. */
export const LICENCE_TYPE = "jobsight-licence+jws";

const Rfc3339 = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$",
});

/** What a licence says. Unknown fields are ignored, so later licences can add some. */
export const LicencePayload = Type.Object({
  licenceId: Type.String({ pattern: "^[A-Za-z0-9._-]{1,64}$" }),
  site: Type.String({ minLength: 1, maxLength: 256 }),
  maxNodes: Type.Integer({ minimum: 1 }),
  notBefore: Rfc3339,
  expiresAt: Rfc3339,
});
export type LicencePayload = Static<typeof LicencePayload>;

/** Where a licence stands. */
export type LicenceState = "valid" | "grace" | "expired" | "missing" | "invalid";

/** A licence checked against the vendor's key: either its payload, or why it cannot be used. */
export type LoadedLicence =
  | { kind: "verified"; payload: LicencePayload }
  | { kind: "missing" }
  | { kind: "invalid"; reason: string };

/** The licence's state at one moment. */
export type LicenceStatus = {
  state: LicenceState;
  /** The licence, once its signature verified. */
  licence?: LicencePayload;
  /** Why the state is not `valid`, for health and logs. */
  reason?: string;
  /** When the grace period ends (RFC 3339), for an expired licence. */
  graceEndsAt?: string;
  /** True when the site runs more nodes than licensed. */
  overNodeLimit: boolean;
};

/** Options of {@link loadLicence}. */
export type LoadLicenceOptions = {
  /**
   * Public keys to verify against (tests inject their own).
   * @default LICENCE_PUBLIC_KEYS, built into the server
   */
  publicKeys?: readonly JWK[];
};

/** Options of {@link licenceStatus}. */
export type LicenceStatusOptions = {
  /**
   * Days after expiry during which the licence is in grace rather than expired.
   * @default 14
   */
  graceDays?: number;
  /**
   * Nodes currently reporting; above `maxNodes` the licence is in grace.
   * @default 0
   */
  nodeCount?: number;
  /**
   * The current time.
   * @default new Date()
   */
  now?: Date;
};

const DAY_MS = 86_400_000;

/**
 * Verifies a licence (a compact JWS, EdDSA over Ed25519) offline against the vendor's public
 * keys. Never throws: a licence that cannot be used is `invalid` with the reason.
 *
 * @example
 * ```ts
 * const loaded = await loadLicence(process.env.JOBSIGHT_LICENCE);
 * const { state } = licenceStatus(loaded, { nodeCount: 120 }); // "valid" | "grace" | …
 * ```
 */
export async function loadLicence(
  jws: string | undefined,
  options: LoadLicenceOptions = {},
): Promise<LoadedLicence> {
  const token = jws?.trim();
  if (!token) return { kind: "missing" };
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { kind: "invalid", reason: "The licence is not a compact JWS" };
  }
  if (header.alg !== "EdDSA" && header.alg !== "Ed25519") {
    return { kind: "invalid", reason: `The licence is signed with ${String(header.alg)}, not EdDSA` };
  }
  if (header.typ !== LICENCE_TYPE) return { kind: "invalid", reason: "The signed document is not a licence" };
  const keys = (options.publicKeys ?? LICENCE_PUBLIC_KEYS).filter(
    (k) => !header.kid || !k.kid || k.kid === header.kid,
  );
  for (const jwk of keys) {
    let payload: Uint8Array;
    try {
      const key = await importJWK(jwk, "EdDSA");
      ({ payload } = await compactVerify(token, key, { algorithms: ["EdDSA", "Ed25519"] }));
    } catch {
      continue;
    }
    return checkPayload(payload);
  }
  return { kind: "invalid", reason: "The licence's signature does not verify against the vendor's key" };
}

function checkPayload(bytes: Uint8Array): LoadedLicence {
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { kind: "invalid", reason: "The licence's payload is not JSON" };
  }
  if (!Value.Check(LicencePayload, payload)) {
    const first = Value.Errors(LicencePayload, payload).First();
    return {
      kind: "invalid",
      reason: `The licence's payload is invalid at ${first?.path || "/"}: ${first?.message}`,
    };
  }
  const { licenceId, site, maxNodes, notBefore, expiresAt } = payload;
  if (!(Date.parse(notBefore) < Date.parse(expiresAt))) {
    return { kind: "invalid", reason: "The licence's notBefore is not before its expiresAt" };
  }
  return { kind: "verified", payload: { licenceId, site, maxNodes, notBefore, expiresAt } };
}

/**
 * The state of a loaded licence at `now`: `valid`; `grace` within `graceDays` after expiry or
 * while more nodes report than licensed; `expired` after the grace period; `missing`; `invalid`
 * (bad signature or payload, or not valid yet). No state ever stops collection: callers only
 * report it in health and responses.
 *
 * @example
 * ```ts
 * licenceStatus(loaded, { now: new Date("2027-01-05T00:00:00Z"), nodeCount: 80 });
 * // { state: "grace", reason: "The licence expired on …", graceEndsAt: "…", … }
 * ```
 */
export function licenceStatus(loaded: LoadedLicence, options: LicenceStatusOptions = {}): LicenceStatus {
  if (loaded.kind === "missing")
    return { state: "missing", reason: "No licence is installed", overNodeLimit: false };
  if (loaded.kind === "invalid") return { state: "invalid", reason: loaded.reason, overNodeLimit: false };
  const licence = loaded.payload;
  const now = (options.now ?? new Date()).getTime();
  const overNodeLimit = (options.nodeCount ?? 0) > licence.maxNodes;
  if (now < Date.parse(licence.notBefore)) {
    return {
      state: "invalid",
      licence,
      reason: `The licence is not valid before ${licence.notBefore}`,
      overNodeLimit,
    };
  }
  const expiresAt = Date.parse(licence.expiresAt);
  if (now >= expiresAt) {
    const graceEnds = expiresAt + (options.graceDays ?? 14) * DAY_MS;
    const graceEndsAt = new Date(graceEnds).toISOString();
    const state = now < graceEnds ? "grace" : "expired";
    return {
      state,
      licence,
      reason: `The licence expired on ${licence.expiresAt}`,
      graceEndsAt,
      overNodeLimit,
    };
  }
  if (overNodeLimit) {
    const reason = `${options.nodeCount} nodes report, the licence covers ${licence.maxNodes}`;
    return { state: "grace", licence, reason, overNodeLimit };
  }
  return { state: "valid", licence, overNodeLimit };
}

/**
 * Signs a licence (the vendor's side). The private key is an Ed25519 JWK or key.
 *
 * @throws {SecurityConfigError} when the payload breaks {@link LicencePayload}.
 *
 * @example
 * ```ts
 * const jws = await signLicence({ licenceId: "L-0001", site: "Example University", maxNodes: 500,
 *   notBefore: "2026-01-01T00:00:00Z", expiresAt: "2027-01-01T00:00:00Z" }, privateJwk);
 * ```
 */
export async function signLicence(payload: LicencePayload, privateKey: JWK | CryptoKey): Promise<string> {
  if (!Value.Check(LicencePayload, payload)) {
    const first = Value.Errors(LicencePayload, payload).First();
    throw new SecurityConfigError(`licence${first?.path ?? ""}`, first?.message ?? "invalid");
  }
  const isJwk = "kty" in privateKey;
  const key = isJwk ? await importJWK(privateKey, "EdDSA") : privateKey;
  const kid = isJwk ? privateKey.kid : undefined;
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "EdDSA", typ: LICENCE_TYPE, ...(kid ? { kid } : {}) })
    .sign(key as CryptoKey);
}
