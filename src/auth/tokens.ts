// HS256 JWTs for apps (`{appId}`) and users (`{user_id, app_id, app_user_id}`), as upstream issues them:
// no expiry, so clients that stored a token keep working.
// jose's entry point loads every module it has (63 files, JWE and key generation among them): importing it took
// 86–88 ms of CPU in three tries on a loaded machine, these three subpaths 30–34 ms. They are what signing and
// checking HS256 tokens needs.
import * as errors from 'jose/errors'
import { SignJWT } from 'jose/jwt/sign'
import { jwtVerify } from 'jose/jwt/verify'
import { BoundedMap } from '../limits/index.js'

export interface UserClaims {
  user_id: string
  app_id: string
  app_user_id: string
}

export interface TokenSigner {
  /** Generation 0 tokens carry `{appId}` only, as upstream issues them; later ones add `gen` (a rotation). */
  appToken(appId: string, generation?: number): Promise<string>
  userToken(claims: UserClaims): Promise<string>
  /** The payload of a token signed with our secret, or a short reason why it is not one. */
  verify(token: string): Promise<{ ok: true; payload: Record<string, unknown> } | { ok: false; reason: string }>
}

/**
 * Verified tokens are remembered: a signature check is deterministic and these tokens never expire, and checking
 * one costs more than the rest of a typical call. Bounded, oldest first out.
 */
const verifiedCacheSize = 10_000

export function createTokenSigner(secret: string): TokenSigner {
  // Imported once: jose would otherwise import the raw secret into WebCrypto on every call.
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ])
  const verified = new BoundedMap<string, Record<string, unknown>>(verifiedCacheSize)
  const sign = async (payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().sign(await key)
  return {
    appToken: (appId, generation = 0) => sign(generation === 0 ? { appId } : { appId, gen: generation }),
    userToken: claims => sign({ ...claims }),
    async verify(token) {
      const known = verified.get(token)
      if (known) return { ok: true, payload: known }
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ['HS256'] })
        verified.set(token, payload)
        return { ok: true, payload }
      } catch (err) {
        if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'invalid signature' }
        if (err instanceof errors.JWTExpired) return { ok: false, reason: 'jwt expired' }
        return { ok: false, reason: 'jwt malformed' }
      }
    },
  }
}
