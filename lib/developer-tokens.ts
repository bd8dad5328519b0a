const ISSUER = 'payrail';
/** Keeps these tokens from being accepted anywhere else a token signed with the same secret might appear. */
const AUDIENCE = 'payrail-dashboard';
export const DEVELOPER_TOKEN_TTL_SECONDS = 12 * 3600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// jose is ESM-only; a dynamic import loads it from this CommonJS build.
const jose = () => import('jose');
const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** A dashboard session: HS256 JWT, `sub` = developer id, valid 12 hours. */
export async function issueDeveloperToken(secret: string, developerId: string): Promise<{ token: string; expiresAt: Date }> {
  const { SignJWT } = await jose();
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = new Date((issuedAt + DEVELOPER_TOKEN_TTL_SECONDS) * 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(developerId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(keyOf(secret));
  return { token, expiresAt };
}

/** The developer id of a valid token; null for anything forged, expired, malformed or for another audience. */
export async function verifyDeveloperToken(secret: string, token: string): Promise<string | null> {
  const { jwtVerify } = await jose();
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    return typeof payload.sub === 'string' && UUID.test(payload.sub) ? payload.sub : null;
  } catch {
    return null;
  }
}
