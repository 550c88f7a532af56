// HS256 JWTs for apps (`{appId}`) and users (`{user_id, app_id, app_user_id}`), as upstream issues them:
// no expiry, so clients that stored a token keep working (reference/pub-protocol.md §2.2).
import { SignJWT, jwtVerify, errors } from 'jose'

export interface UserClaims {
  user_id: string
  app_id: string
  app_user_id: string
}

export interface TokenSigner {
  appToken(appId: string): Promise<string>
  userToken(claims: UserClaims): Promise<string>
  /** The payload of a token signed with our secret, or a short reason why it is not one. */
  verify(token: string): Promise<{ ok: true; payload: Record<string, unknown> } | { ok: false; reason: string }>
}

export function createTokenSigner(secret: string): TokenSigner {
  const key = new TextEncoder().encode(secret)
  const sign = (payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().sign(key)
  return {
    appToken: appId => sign({ appId }),
    userToken: claims => sign({ ...claims }),
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] })
        return { ok: true, payload }
      } catch (err) {
        if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'invalid signature' }
        if (err instanceof errors.JWTExpired) return { ok: false, reason: 'jwt expired' }
        return { ok: false, reason: 'jwt malformed' }
      }
    },
  }
}
