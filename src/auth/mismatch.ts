// When a credential is refused, say which kind the operation needs and which kind was sent, when the sent one is
// recognisably another kind: "jwt malformed" alone does not tell an integrator that they sent the admin token
// where a user token belongs. Only kinds the caller already holds are named (a token they sent that verifies, or
// that equals a configured token), so the message tells a stranger nothing new.
import type { AuthKind } from '../../schema/operation.js'
import { bearerValue, type Credentials } from './credentials.js'
import type { AccountDirectory } from './directory.js'
import type { TokenSigner } from './tokens.js'
import { sameSecret } from './secret-compare.js'

export interface MismatchDeps {
  adminToken: string
  metricsToken?: string
  tokens: TokenSigner
  directory: AccountDirectory
}

const needs: Partial<Record<AuthKind, string>> = {
  admin: 'the admin token',
  metrics: 'the metrics token',
  app: 'an app token',
  user: 'a user token',
  walletInvoice: 'a wallet key (invoice or admin) in X-Api-Key',
  walletAdmin: "a wallet's admin key in X-Api-Key",
  operator: 'the admin token',
  member: 'a user token, a wallet key or the admin token',
}

/**
 * Where the tokens go in an HTTP request, for a caller who sent nothing the daemon recognises: "jwt malformed" and
 * "empty user token provided" do not say that an app or user token is a Bearer token, nor where one comes from.
 * (The admin and metrics refusals already name their header; the wallet host's clients compare its refusals exactly.)
 */
const sentAs: Partial<Record<AuthKind, string>> = {
  app: 'as Authorization: Bearer <app token> (from AddApp or AuthApp)',
  user: 'as Authorization: Bearer <user token> (from AddAppUser, AuthorizeUser or GetAppUser)',
}

/**
 * "this operation needs an app token; the admin token was sent"; or, when nothing recognisable was sent (no
 * credential, or a token this daemon did not sign), where the credential the operation needs goes; undefined when
 * there is nothing to add.
 */
export async function credentialMismatch(need: AuthKind, creds: Credentials, deps: MismatchDeps): Promise<string | undefined> {
  const needed = needs[need]
  if (!needed || creds.nostr) return undefined
  const sent = await sentKinds(creds, deps)
  const other = sent.find(kind => !accepted(need, kind.kind))
  if (other) return `this operation needs ${needed}; ${other.text} was sent`
  if (sent.length === 0 && sentAs[need]) return `this operation needs ${needed}, ${sentAs[need]}`
  return undefined
}

type SentKind = { kind: 'admin' | 'metrics' | 'app' | 'user' | 'walletInvoice' | 'walletAdmin' | 'walletKeyInAuthorization'; text: string }

async function sentKinds(creds: Credentials, deps: MismatchDeps): Promise<SentKind[]> {
  const kinds: SentKind[] = []
  const token = bearerValue(creds.authorization)
  if (token) {
    const tokenKind = await classifyToken(token, deps)
    if (tokenKind) kinds.push(tokenKind)
  }
  if (creds.apiKey) {
    const owner = await deps.directory.walletByKey(creds.apiKey)
    if (owner) kinds.push(owner.keyType === 'admin' ? { kind: 'walletAdmin', text: "a wallet's admin key" } : { kind: 'walletInvoice', text: "a wallet's invoice key" })
  }
  return kinds
}

async function classifyToken(token: string, deps: MismatchDeps): Promise<SentKind | undefined> {
  if (sameSecret(token, deps.adminToken)) return { kind: 'admin', text: 'the admin token' }
  if (deps.metricsToken && sameSecret(token, deps.metricsToken)) return { kind: 'metrics', text: 'the metrics token' }
  const owner = await deps.directory.walletByKey(token)
  if (owner) return { kind: 'walletKeyInAuthorization', text: 'a wallet key in Authorization (send it in X-Api-Key)' }
  const verified = await deps.tokens.verify(token)
  if (!verified.ok) return undefined
  if (typeof verified.payload.appId === 'string') return { kind: 'app', text: 'an app token' }
  if (typeof verified.payload.user_id === 'string') return { kind: 'user', text: 'a user token' }
  return undefined
}

/** Whether a sent kind is one the operation takes (then the refusal is about its value, not its kind). */
function accepted(need: AuthKind, sent: SentKind['kind']): boolean {
  switch (need) {
    case 'admin':
    case 'operator':
      return sent === 'admin'
    case 'metrics':
      // The admin token opens metrics operations only while no metrics token is set, and is then never refused.
      return sent === 'metrics'
    case 'app':
      return sent === 'app'
    case 'user':
      return sent === 'user'
    case 'walletInvoice':
      return sent === 'walletInvoice' || sent === 'walletAdmin'
    case 'walletAdmin':
      // An invoice key gets the wallet host's own "Invalid adminkey.", which already names the kind needed (and
      // which the host's clients compare exactly).
      return sent === 'walletAdmin' || sent === 'walletInvoice'
    case 'member':
      return sent === 'admin' || sent === 'user' || sent === 'walletInvoice' || sent === 'walletAdmin'
    default:
      return true
  }
}
