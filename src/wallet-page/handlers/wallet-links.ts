// Wallet page links, handed out and revoked by the operator (for any app user) and by an app (for its own users
// only). A link's end, by revocation or by a newer link, also ends the NWC connections it made on the page: the link
// is gone first, then its connections, and only then does the caller hear that it is revoked.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import { unixSeconds } from '../../units/index.js'
import type { WalletAccounts, WalletLinks } from '../../wallet/index.js'

export interface WalletLinkDeps {
  accounts: Pick<WalletAccounts, 'appUser'>
  links: WalletLinks
  /** Ends the NWC connections the link with this id made (the NWC room's door). */
  endConnections(walletLinkId: string): Promise<number>
  /** The daemon's public address (`[http] public_url`, else where it listens). */
  serviceUrl(): string
}

export function walletLinkHandlers({ accounts, links, endConnections, serviceUrl }: WalletLinkDeps): HandlerTable {
  /** The app user named `identifier`; with `appId`, only one of that app (another app's is not found, as none). */
  const appUserNamed = async (identifier: string, appId?: string) => {
    const appUser = await accounts.appUser(identifier.trim())
    if (!appUser || (appId !== undefined && appUser.app_id !== appId)) {
      throw new OperationError('not_found', appId === undefined ? `no app user with the identifier ${identifier}` : 'user not found')
    }
    return appUser
  }
  const create = async (userId: string) => {
    const { secret, createdAt, replaced } = await links.issue(userId)
    if (replaced !== undefined) await endConnections(replaced)
    const path = `/wallet/#${secret}`
    return { secret, path, url: new URL(path, serviceUrl()).href, user_id: userId, created_at: unixSeconds(createdAt) }
  }
  const revoke = async (userId: string) => {
    const revoked = await links.revoke(userId)
    if (revoked !== undefined) await endConnections(revoked)
    return { revoked: revoked !== undefined }
  }
  return {
    OperatorCreateWalletLink: async input => create((await appUserNamed(input.identifier)).user_id),
    OperatorRevokeWalletLink: async input => revoke((await appUserNamed(input.identifier)).user_id),
    AppCreateWalletLink: async (input, ctx) => create((await appUserNamed(input.user_identifier, ctx.caller.appId)).user_id),
    AppRevokeWalletLink: async (input, ctx) => revoke((await appUserNamed(input.user_identifier, ctx.caller.appId)).user_id),
  }
}
