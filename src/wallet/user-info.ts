// UserInfo as upstream answers it: balance and fee parameters in sats, and the CLINK pointers that let other
// wallets pay, debit and manage this user over Nostr.
import type { z } from 'zod'
import type { UserInfo } from '../../schema/messages/users.js'
import { encodeNdebit, encodeNmanage, encodeNoffer } from '../clink/index.js'
import type { AccountStore, AppUserRow, UserRow } from './accounts.js'
import { maxWithdrawableSats, msatToSats, type FeePolicy } from './fees.js'

export interface UserInfoDeps {
  accounts: AccountStore
  fees: FeePolicy
  /** The relay the pointers name (the first service relay, as upstream). */
  relayUrl(): string
  bridgeUrl: string
}

export function describeUser(user: UserRow, appUser: AppUserRow, deps: UserInfoDeps): z.input<typeof UserInfo> {
  const balance = msatToSats(user.balance_msat)
  const app = deps.accounts.appById(appUser.app_id)!
  const relay = deps.relayUrl()
  const pointer = { pubkey: app.nostr_public_key, relay, pointer: appUser.identifier }
  return {
    userId: user.id,
    balance,
    max_withdrawable: maxWithdrawableSats(balance, deps.fees),
    user_identifier: appUser.identifier,
    service_fee_bps: deps.fees.serviceFeeBps,
    network_max_fee_bps: 0,
    network_max_fee_fixed: deps.fees.serviceFeeFloorSats,
    // The default offer's id is the app user's identifier (upstream §5.2): spontaneous amount.
    noffer: encodeNoffer({ pubkey: app.nostr_public_key, relay, offer: appUser.identifier, priceType: 'spontaneous' }),
    ndebit: encodeNdebit(pointer),
    nmanage: encodeNmanage(pointer),
    callback_url: appUser.callback_url,
    bridge_url: deps.bridgeUrl,
    topic_id: appUser.topic_id,
  }
}
