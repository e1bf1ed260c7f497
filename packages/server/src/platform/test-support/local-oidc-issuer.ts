import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

// RSA key generation takes hundreds of milliseconds on a busy machine; every issuer draws its
// n-th key of an algorithm from one pool, so keys stay distinct within an issuer.
const keyPool = new Map<string, Promise<{ privateKey: CryptoKey; publicKey: CryptoKey }>[]>();
function pooledKeyPair(alg: string, index: number) {
  const pairs = keyPool.get(alg) ?? [];
  keyPool.set(alg, pairs);
  while (pairs.length <= index) pairs.push(generateKeyPair(alg, { extractable: true }));
  return pairs[index];
}

/** One signing key of the {@link LocalOidcIssuer}. */
export type IssuerKey = {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
};

/** What a {@link LocalOidcIssuer.sign} call may override. */
export type SignOptions = {
  /** Sign with this key instead of the active one (e.g. an old key, or one never published). */
  key?: IssuerKey;
  /** Seconds from now to `exp`. @default 300 */
  expiresInSeconds?: number;
  /** Audience. @default "jobsight" */
  audience?: string | string[];
  /** Issuer written into the token. @default the issuer's own URL */
  issuer?: string;
};

/**
 * A real OpenID Provider for tests: a node:http server on 127.0.0.1 serving a discovery document
 * and a JWKS of keys it generated itself with jose, able to rotate and retire keys and to go down.
 */
export class LocalOidcIssuer {
  readonly keys: IssuerKey[] = [];
  /** Published key ids, in JWKS order. */
  published: string[] = [];
  active!: IssuerKey;
  /** How many times the JWKS and the discovery document were fetched. */
  hits = { jwks: 0, discovery: 0 };
  /** When set, every request answers this HTTP status. */
  failWith: number | undefined;
  #server: Server | undefined;
  #url = "";

  /** Starts the issuer with one active RS256 key. */
  static async start(): Promise<LocalOidcIssuer> {
    const issuer = new LocalOidcIssuer();
    issuer.active = await issuer.addKey("RS256");
    await issuer.listen();
    return issuer;
  }

  /** `http://127.0.0.1:<port>/realms/test` */
  get url(): string {
    return this.#url;
  }

  /** Adds a key (distinct from this issuer's others); `publish` adds it to the JWKS. */
  async addKey(alg: string, publish = true): Promise<IssuerKey> {
    const { privateKey, publicKey } = await pooledKeyPair(alg, this.keys.filter((k) => k.alg === alg).length);
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
    const key = { kid, alg, privateKey, publicKey, publicJwk };
    this.keys.push(key);
    if (publish) this.published.push(kid);
    return key;
  }

  /** Rotation as providers do it: a new key becomes active; the old one stays published. */
  async rotate(alg = "RS256"): Promise<IssuerKey> {
    this.active = await this.addKey(alg);
    return this.active;
  }

  /** Removes a key from the JWKS. */
  retire(key: IssuerKey): void {
    this.published = this.published.filter((k) => k !== key.kid);
  }

  /** Signs a JWT with `sub` and the given claims. */
  async sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
    const key = options.key ?? this.active;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iat: now, exp: now + (options.expiresInSeconds ?? 300), ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
      .setIssuer(options.issuer ?? this.url)
      .setAudience(options.audience ?? "jobsight")
      .sign(key.privateKey);
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (this.failWith !== undefined) {
        res.writeHead(this.failWith).end();
        return;
      }
      if (path === "/realms/test/.well-known/openid-configuration") {
        this.hits.discovery++;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            issuer: this.url,
            jwks_uri: `${this.url}/jwks`,
            response_types_supported: ["code"],
          }),
        );
      } else if (path === "/realms/test/jwks") {
        this.hits.jwks++;
        const keys = this.published.map((kid) => this.keys.find((k) => k.kid === kid)?.publicJwk);
        res.writeHead(200, { "content-type": "application/jwk-set+json" });
        res.end(JSON.stringify({ keys }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/test`;
  }

  /** Stops listening: the issuer is down (connection refused). */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
