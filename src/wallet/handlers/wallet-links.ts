// The operator's wallet links (the wallet page's secret): create one for an app user, shown once, or revoke it.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { AccountStore } from '../accounts.js'
import type { WalletLinkStore } from '../wallet-link-store.js'
import { unixSeconds } from '../../units/index.js'

export interface WalletLinkDeps {
  accounts: AccountStore
  links: WalletLinkStore
  /** The daemon's public address (`[http] public_url`, else where it listens). */
  serviceUrl(): string
}

export function walletLinkHandlers({ accounts, links, serviceUrl }: WalletLinkDeps): HandlerTable {
  const appUserNamed = async (identifier: string) =>
    (await accounts.appUser(identifier.trim())) ?? notFound(identifier)
  return {
    OperatorCreateWalletLink: async input => {
      const appUser = await appUserNamed(input.identifier)
      const { secret, createdAt } = await links.issue(appUser.user_id)
      const path = `/wallet/#${secret}`
      return { secret, path, url: new URL(path, serviceUrl()).href, user_id: appUser.user_id, created_at: unixSeconds(createdAt) }
    },
    OperatorRevokeWalletLink: async input => {
      const appUser = await appUserNamed(input.identifier)
      return { revoked: await links.revoke(appUser.user_id) }
    },
  }
}

function notFound(identifier: string): never {
  throw new OperationError('not_found', `no app user with the identifier ${identifier}`)
}
