// Any authenticated person (the model registry's "current user"): a wallet key, the
// operator's admin token, or a user token.
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import type { TokenSigner } from './tokens.js'
import type { AccountDirectory } from './directory.js'
import { isOperatorToken } from './operator.js'
import { walletForKey } from './wallet-key.js'
import { userFromToken } from './user.js'
import type { AdminAuthDeps } from './admin.js'

export async function authenticateMember(
  creds: Credentials,
  deps: AdminAuthDeps & { tokens: TokenSigner; directory: AccountDirectory },
): Promise<Extract<Caller, { kind: 'user' | 'wallet' | 'operator' }>> {
  if (creds.nostr) {
    if (deps.adminPubkey() === creds.nostr.pubkey) return { kind: 'operator' }
    if (!deps.directory.userForPubkey) throw new OperationError('node_unavailable', 'Nostr accounts are not available')
    return deps.directory.userForPubkey(creds.nostr.pubkey, creds.nostr.appId)
  }
  if (creds.apiKey) return walletForKey(creds.apiKey, deps.directory)
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'Not authenticated', { status: 401 })
  if (isOperatorToken(token, deps)) return { kind: 'operator' }
  try {
    return await userFromToken(token, deps)
  } catch {
    throw new OperationError('unauthenticated', 'Invalid credentials', { status: 401 })
  }
}
