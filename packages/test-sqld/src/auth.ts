/**
 * Token authentication as a hosted libSQL database (Turso) does it: sqld verifies an Ed25519
 * signed JWT (`--auth-jwt-key-file`), the client sends it as `authToken`. A fresh key pair per
 * call, so a test can also prove that a token signed by another key is refused.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";

export interface SqldAuth {
  /** The public key sqld verifies tokens with (SPKI PEM). */
  readonly publicKeyPem: string;
  /** A token signed with the private key: full access, expiring in `expiresInS` (default 1 h). */
  token(expiresInS?: number): string;
}

/** A new Ed25519 key pair and a token factory for it. */
export function sqldAuth(): SqldAuth {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    token: (expiresInS = 3600) => signJwt(privateKey, expiresInS),
  };
}

function signJwt(privateKey: KeyObject, expiresInS: number): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "EdDSA", typ: "JWT" })}.${part({ iat: now, exp: now + expiresInS })}`;
  return `${unsigned}.${sign(null, Buffer.from(unsigned), privateKey).toString("base64url")}`;
}
