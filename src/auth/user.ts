// User: an HS256 JWT `{user_id, app_id, app_user_id}` over HTTP; over Nostr, the event's pubkey mapped to an app
// user (auto-provisioned where the app allows it).
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import type { TokenSigner } from './tokens.js'
import type { AccountDirectory } from './directory.js'

export type UserCaller = Extract<Caller, { kind: 'user' }>

export async function authenticateUser(
  creds: Credentials,
  deps: { tokens: TokenSigner; directory: AccountDirectory },
): Promise<UserCaller> {
  if (creds.nostr) {
    if (!deps.directory.userForPubkey) throw new OperationError('node_unavailable', 'Nostr accounts are not available')
    return deps.directory.userForPubkey(creds.nostr.pubkey, creds.nostr.appId)
  }
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'empty user token provided')
  return userFromToken(token, deps)
}

/** Also used by the `member` kind, which accepts a user token among other credentials. */
export async function userFromToken(
  token: string,
  deps: { tokens: TokenSigner; directory: AccountDirectory },
): Promise<UserCaller> {
  const verified = await deps.tokens.verify(token)
  if (!verified.ok) throw new OperationError('unauthenticated', verified.reason)
  const { user_id, app_id, app_user_id } = verified.payload
  if (
    typeof user_id !== 'string' ||
    typeof app_id !== 'string' ||
    typeof app_user_id !== 'string' ||
    !(await deps.directory.userTokenValid({ user_id, app_id, app_user_id }))
  ) {
    // Upstream's wording, typo included: clients match on it.
    throw new OperationError('unauthenticated', 'the provided token is not a valid app user token token')
  }
  return { kind: 'user', userId: user_id, appId: app_id, appUserId: app_user_id }
}
