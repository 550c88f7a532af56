// Authentication: one module per caller kind turns raw credentials into a typed caller; then the extension gate
// of the wallet host applies to authenticated calls of extension operations.
import type { CatalogueEntry } from '../../schema/catalogue.js'
import type { AuthKind } from '../../schema/operation.js'
import { OperationError, type Authenticate, type Caller, type Credentials } from '../bus/index.js'
import type { AccountDirectory } from './directory.js'
import type { TokenSigner } from './tokens.js'
import { authenticateAdmin } from './admin.js'
import { authenticateMetrics } from './metrics.js'
import { authenticateApp } from './app.js'
import { authenticateUser } from './user.js'
import { authenticateGuestPub } from './guest-pub.js'
import { authenticateWalletKey } from './wallet-key.js'
import { authenticateOperator } from './operator.js'
import { authenticateMember } from './member.js'
import { credentialMismatch } from './mismatch.js'
import { authenticateNwc, type NwcDirectory } from './nwc.js'
import { authenticateClinkRequester } from './clink-requester.js'
import { defaultWalletLinkFailures, isWalletLinkSecret, walletLinkGate } from './wallet-link.js'
import { bearerValue } from './credentials.js'
import type { RateBudget } from '../limits/index.js'

export type { Authenticate, Credentials } from '../bus/index.js'
export type { AccountDirectory, WalletKeyOwner } from './directory.js'
export { nwcConnectionOf, type NwcDirectory, type NwcConnectionView } from './nwc.js'
export { createTokenSigner, type TokenSigner, type UserClaims } from './tokens.js'
export { sameSecret } from './secret-compare.js'
export { walletLinkRefusal } from './wallet-link.js'

export interface AuthDeps {
  adminToken: string
  metricsToken?: string
  tokens: TokenSigner
  directory: AccountDirectory
  /** The pubkey enrolled as operator over Nostr, if any. */
  adminPubkey(): string | undefined
  /** Extensions only the operator may use (`[extensions] admin_only`). */
  adminOnlyExtensions: readonly string[]
  /** NWC connections (the nwcConnection caller kind); without it every NIP-47 request is refused. */
  nwc?: NwcDirectory
  /** Wrong wallet link secrets one client address may send (`[auth] wallet_link_failures_*`). */
  walletLinkFailures?: RateBudget
  /** Milliseconds since the epoch (NWC connection expiry, the wallet link budget); Date.now by default. */
  now?(): number
}

export function createAuthenticator(deps: AuthDeps): Authenticate {
  const now = deps.now ?? (() => Date.now())
  const walletLinks = walletLinkGate(deps.directory, deps.walletLinkFailures ?? defaultWalletLinkFailures, now)
  const byKind: Record<AuthKind, (creds: Credentials, entry: CatalogueEntry, clientAddress?: string) => Caller | Promise<Caller>> = {
    guest: () => ({ kind: 'guest' }),
    admin: creds => authenticateAdmin(creds, deps),
    metrics: creds => authenticateMetrics(creds, deps),
    app: creds => authenticateApp(creds, deps),
    user: (creds, entry, clientAddress) => {
      const token = bearerValue(creds.authorization)
      return token && isWalletLinkSecret(token) ? walletLinks.userFor(token, entry, clientAddress) : authenticateUser(creds, deps)
    },
    guestPub: creds => authenticateGuestPub(creds),
    walletInvoice: creds => authenticateWalletKey(creds, 'invoice', deps.directory),
    walletAdmin: creds => authenticateWalletKey(creds, 'admin', deps.directory),
    operator: creds => authenticateOperator(creds, deps),
    member: creds => authenticateMember(creds, deps),
    // Public routes that can do more for a caller who names a wallet (the restaurant quote's balance pre-check).
    guestOrWallet: creds => (creds.apiKey ? authenticateWalletKey(creds, 'invoice', deps.directory) : { kind: 'guest' }),
    nwcConnection: (creds, entry) => authenticateNwc(entry, creds, { nwc: deps.nwc, now }),
    clinkRequester: creds => authenticateClinkRequester(creds),
  }
  return async (entry, creds, clientAddress) => {
    let caller: Caller
    try {
      caller = await byKind[entry.auth](creds, entry, clientAddress)
    } catch (err) {
      // A wallet link's refusal is read by a person on the wallet page: it stays the one sentence it is.
      if (entry.auth === 'user' && isWalletLinkSecret(bearerValue(creds.authorization) ?? '')) throw err
      throw await withMismatch(err, entry.auth, creds, deps)
    }
    const extension = (entry as { extension?: string }).extension
    // A guestOrWallet route is public: the key only names the payer's wallet, whose account need not have
    // enabled the extension (a customer is not a restaurant owner).
    if (extension && caller.kind !== 'guest' && entry.auth !== 'guestOrWallet') await gateExtension(extension, caller, deps)
    return caller
  }
}

/**
 * A refusal gains which credential kind the operation needs and which was sent, when they differ. The reason
 * itself comes first, unchanged: upstream clients match on it.
 */
async function withMismatch(err: unknown, need: AuthKind, creds: Credentials, deps: AuthDeps): Promise<unknown> {
  if (!(err instanceof OperationError) || !refusalCodes.has(err.code)) return err
  const mismatch = await credentialMismatch(need, creds, deps).catch(() => undefined)
  return mismatch ? new OperationError(err.code, `${err.message} (${mismatch})`, { status: err.status }) : err
}

const refusalCodes = new Set(['unauthenticated', 'forbidden', 'not_found'])

async function gateExtension(extension: string, caller: Caller, deps: AuthDeps): Promise<void> {
  if (caller.kind === 'operator' || caller.kind === 'admin') return
  if (deps.adminOnlyExtensions.includes(extension)) {
    throw new OperationError('forbidden', `User not authorized for extension '${extension}'.`, { status: 403 })
  }
  if (caller.kind === 'wallet' && !(await deps.directory.extensionEnabled(caller.accountId, extension))) {
    throw new OperationError('forbidden', `Extension '${extension}' not enabled.`, { status: 403 })
  }
}
