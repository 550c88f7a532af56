// What authentication needs to know about accounts. The wallet room implements it; auth never reads tables.
import type { Caller } from '../bus/index.js'

export interface WalletKeyOwner {
  walletId: string
  accountId: string
  keyType: 'admin' | 'invoice'
}

export interface AccountDirectory {
  appExists(appId: string): boolean
  /** True when the user of a user token still exists under that app user. */
  userTokenValid(claims: { user_id: string; app_id: string; app_user_id: string }): boolean
  walletByKey(key: string): WalletKeyOwner | undefined
  extensionEnabled(accountId: string, extension: string): boolean
  /** Nostr: the app user behind a pubkey talking to an app, created when the app allows it. */
  userForPubkey?(pubkey: string, appId: string): Extract<Caller, { kind: 'user' }>
}
