// App: an HS256 JWT whose payload is `{appId}`; HTTP only.
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import type { TokenSigner } from './tokens.js'
import type { AccountDirectory } from './directory.js'

export async function authenticateApp(
  creds: Credentials,
  deps: { tokens: TokenSigner; directory: AccountDirectory },
): Promise<Extract<Caller, { kind: 'app' }>> {
  if (creds.nostr) throw new OperationError('forbidden', 'app operations are not available over Nostr')
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'empty app token provided')
  const verified = await deps.tokens.verify(token)
  if (!verified.ok) throw new OperationError('unauthenticated', verified.reason)
  const { appId, gen } = verified.payload
  const current = typeof appId === 'string' ? await deps.directory.appTokenGeneration(appId) : undefined
  if (typeof appId !== 'string' || current === undefined) {
    throw new OperationError('unauthenticated', 'the provided token is not an app token')
  }
  if ((typeof gen === 'number' ? gen : 0) !== current) {
    throw new OperationError('unauthenticated', 'this app token was replaced by a newer one (the operator rotated it): use the new token')
  }
  return { kind: 'app', appId }
}
