import type { JWK } from "jose";

/**
 * The vendor's Ed25519 public key that licences are verified against, offline.
 *
 * This is a development key whose private half was never kept: no licence verifies against it.
 * Before release the vendor generates the real pair (`tsx src/platform/licence/issue-licence.ts
 * generate-key --out <file>`), keeps the private JWK offline and pastes the printed public JWK
 * here. A new `kid` lets a later key rotation accept both keys for a while.
 */
export const LICENCE_PUBLIC_KEYS: readonly JWK[] = [
  {
    kty: "OKP",
    crv: "Ed25519",
    x: "uTzw1bnOeSeiXILNy-nNOtoEPAh5ynW4b9n1zdG-zj0",
    kid: "jobsight-licence-dev-1",
    alg: "EdDSA",
  },
];
