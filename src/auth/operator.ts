// The host super user of the extensions: the operator's admin token as `Authorization: Bearer <token>`, or the
// enrolled admin pubkey over Nostr.
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import { sameSecret } from './secret-compare.js'
import { enrolledAdmin, type AdminAuthDeps } from './admin.js'

export function authenticateOperator(creds: Credentials, deps: AdminAuthDeps): Extract<Caller, { kind: 'operator' }> {
  if (creds.nostr) {
    enrolledAdmin(creds.nostr.pubkey, deps, 'admin access denied')
    return { kind: 'operator' }
  }
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'Missing operator credentials.', { status: 401 })
  if (!isOperatorToken(token, deps)) {
    throw new OperationError('forbidden', 'Only the operator may use this route.', { status: 403 })
  }
  return { kind: 'operator' }
}

export function isOperatorToken(token: string, deps: AdminAuthDeps): boolean {
  return sameSecret(token, deps.adminToken)
}
