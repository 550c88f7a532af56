// What authentication needs to know about accounts. The wallet room implements it; auth never reads tables.
import type { Caller } from '../bus/index.js'

export interface WalletKeyOwner {
  walletId: string
  accountId: string
  keyType: 'admin' | 'invoice'
}

export interface AccountDirectory {
  /** The generation an app's tokens must carry now; undefined when there is no such app. */
  appTokenGeneration(appId: string): Promise<number | undefined>
  /** True when the user of a user token still exists under that app user. */
  userTokenValid(claims: { user_id: string; app_id: string; app_user_id: string }): Promise<boolean>
  walletByKey(key: string): Promise<WalletKeyOwner | undefined>
  extensionEnabled(accountId: string, extension: string): Promise<boolean>
  /** The app user a wallet page link's secret stands for; undefined when it is wrong or revoked. */
  userForWalletLink?(secret: string): Promise<Extract<Caller, { kind: 'user' }> | undefined>
  /** Nostr: the app user behind a pubkey talking to an app, created when the app allows it. */
  userForPubkey?(pubkey: string, appId: string): Promise<Extract<Caller, { kind: 'user' }>>
}
