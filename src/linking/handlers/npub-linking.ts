// Binding an app-managed user to a relay key: the app asks for a 2-minute token
// over HTTP, hands it to its user, and the user's client presents it over the relay with LinkNPubThroughToken.
// Tokens are persisted, so a restart within the two minutes does not void them.
import { bytesToHex } from '@noble/hashes/utils.js'
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { NostrAccounts, WalletAccounts } from '../../wallet/index.js'
import type { LinkingStore } from '../linking-store.js'

/** Upstream's linking tokens live two minutes. */
export const linkingTokenTtlMs = 2 * 60 * 1000
const tokenBytes = 32

export interface NpubLinkingDeps {
  store: LinkingStore
  accounts: WalletAccounts
  nostr: NostrAccounts
  random(bytes: number): Uint8Array
}

export function npubLinkingHandlers({ store, accounts, nostr, random }: NpubLinkingDeps): HandlerTable {
  const appUserOf = async (identifier: string, appId: string) => {
    const appUser = await accounts.appUser(identifier)
    if (!appUser || appUser.app_id !== appId) throw new OperationError('not_found', 'user not found')
    return appUser
  }
  const newToken = (identifier: string, appId: string, now: number) =>
    ({ token: bytesToHex(random(tokenBytes)), identifier, appId, expiresAt: now + linkingTokenTtlMs })

  return {
    GetNPubLinkingState: async (input, ctx) => {
      const appUser = await appUserOf(input.user_identifier, ctx.caller.appId)
      const pending = await store.pendingToken(appUser.identifier, ctx.clock.now())
      if (pending) return { state: { type: 'linking_token', linking_token: pending.token } }
      if (appUser.nostr_public_key) return { state: { type: 'linked_npub', linked_npub: appUser.nostr_public_key } }
      return { state: { type: 'unlinked', unlinked: {} } }
    },
    RequestNPubLinkingToken: async (input, ctx) => {
      const appUser = await appUserOf(input.user_identifier, ctx.caller.appId)
      const now = ctx.clock.now()
      if (await store.pendingToken(appUser.identifier, now)) {
        throw new OperationError('conflict', 'a linking token is already pending for this user')
      }
      if (appUser.nostr_public_key) throw new OperationError('conflict', 'this user is already linked to an npub')
      // Guarded: of two requests at once, one issues the token and the other hears it is pending.
      const row = newToken(appUser.identifier, ctx.caller.appId, now)
      if (!(await store.issueToken(row, now))) throw new OperationError('conflict', 'a linking token is already pending for this user')
      return { token: row.token }
    },
    ResetNPubLinkingToken: async (input, ctx) => {
      const appUser = await appUserOf(input.user_identifier, ctx.caller.appId)
      const row = newToken(appUser.identifier, ctx.caller.appId, ctx.clock.now())
      await store.putToken(row)
      return { token: row.token }
    },
    LinkNPubThroughToken: async (input, ctx) => {
      // Taken before the link: of two keys presenting the same token at once, exactly one is linked. A token of
      // another app is as unknown to this app as a made-up one.
      const row = await store.takeToken(input.token.trim(), ctx.caller.appId, ctx.clock.now())
      if (!row) throw new OperationError('not_found', 'invalid or expired linking token')
      try {
        await nostr.linkPubkey(row.app_user_identifier, ctx.caller.pub)
      } catch (err) {
        await store.restoreToken(row) // the key has an account elsewhere: the token stays good for another key
        throw err
      }
      return {}
    },
  }
}
