// Admin: the static admin token over HTTP, or the enrolled admin pubkey over Nostr (docs/pub-protocol.md,
// "Callers"). Error reasons are upstream's.
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import { sameSecret } from './secret-compare.js'

export interface AdminAuthDeps {
  adminToken: string
  adminPubkey(): string | undefined
}

export function authenticateAdmin(creds: Credentials, deps: AdminAuthDeps): Extract<Caller, { kind: 'admin' }> {
  if (creds.nostr) return { kind: 'admin', adminId: enrolledAdmin(creds.nostr.pubkey, deps, 'admin access denied') }
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'admin header not found')
  if (!sameSecret(token, deps.adminToken)) throw new OperationError('unauthenticated', 'admin token invalid')
  // Upstream's HTTP admin context is the literal admin id "admin1"; clients never see another value.
  return { kind: 'admin', adminId: 'admin1' }
}

/** Over Nostr only the pubkey enrolled with EnrollAdminToken is the operator. */
export function enrolledAdmin(pubkey: string, deps: AdminAuthDeps, denied: string): string {
  const admin = deps.adminPubkey()
  if (!admin) throw new OperationError('forbidden', 'admin access not configured')
  if (admin !== pubkey) throw new OperationError('forbidden', denied)
  return pubkey
}
