// Wallet page links: a secret `wl_…` sent as `Authorization: Bearer` where a user token goes stands for the app user
// it was issued for (the wallet room keeps it), until the operator revokes it. Anyone who finds the page can try
// secrets, so wrong ones are budgeted per client address: once an address has spent its budget, every secret it
// sends is refused unchecked until the budget refills, right or wrong, so guessing learns nothing.
import type { CatalogueEntry, OperationName } from '../../schema/catalogue.js'
import { OperationError, type Caller } from '../bus/index.js'
import { RateLimiter, addressKey, type RateBudget } from '../limits/index.js'
import type { AccountDirectory } from './directory.js'

/** How a wallet link's secret begins; a user token (a JWT) never does. */
const walletLinkPrefix = 'wl_'

/** Wrong wallet link secrets one client address may send: a few a minute, after a first handful at once. */
export const defaultWalletLinkFailures: RateBudget = { perMinute: 10, burst: 20 }

/**
 * One text for a wrong, mistyped, replaced and revoked link alike: the page shows it to the person holding the link,
 * and a stranger learns nothing about which wallets exist.
 */
export const walletLinkRefusal =
  'This wallet link does not open a wallet: it was revoked or replaced by a newer one, or it is incomplete. Ask whoever gave it to you for a new link.'

/**
 * What a wallet link may do: what the wallet page does, and no more. In particular it cannot be traded for a credential
 * that outlives it (a user token by GetHttpCreds, the wallet keys by GetWalletKeys), so revoking the link ends its
 * holder's access but for the NWC connections made with it, which the operator revokes on their own.
 */
const walletLinkOperations: ReadonlySet<OperationName> = new Set<OperationName>([
  'UserHealth', 'GetUserInfo', 'GetUserOperations', 'GetPaymentState', 'NewInvoice', 'DecodeInvoice', 'PayInvoice',
  'ResolveLnurlPay', 'GetLnurlPayInvoice', 'CreateNwcConnection', 'ListNwcConnections', 'RevokeNwcConnection',
])

export function isWalletLinkSecret(token: string): boolean {
  return token.startsWith(walletLinkPrefix)
}

export interface WalletLinkGate {
  /**
   * The user the secret stands for, or a refusal: unauthenticated when it opens nothing, 429 over the budget,
   * forbidden for an operation the wallet page does not use.
   */
  userFor(secret: string, entry: CatalogueEntry, clientAddress: string | undefined): Promise<Extract<Caller, { kind: 'user' }>>
}

export function walletLinkGate(directory: AccountDirectory, budget: RateBudget, now: () => number): WalletLinkGate {
  const failures = new RateLimiter(budget)
  return {
    async userFor(secret, entry, clientAddress) {
      if (!walletLinkOperations.has(entry.name)) {
        throw new OperationError('forbidden', `a wallet link may not call ${entry.name}: use a user token`)
      }
      const key = addressKey(clientAddress)
      const waitMs = failures.waitMs(key, now())
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000))
        throw new OperationError('limit_exceeded', `too many requests: wrong wallet links from this address; try again in ${seconds} s`, {
          status: 429,
          retryAfterSeconds: seconds,
        })
      }
      const user = await directory.userForWalletLink?.(secret)
      if (user) return user
      failures.take(key, now())
      throw new OperationError('unauthenticated', walletLinkRefusal)
    },
  }
}
