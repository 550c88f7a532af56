// UserInfo as upstream answers it: balance and fee parameters in sats, and the CLINK pointers that let other
// wallets pay, debit and manage this user over Nostr.
import type { z } from 'zod'
import type { UserInfo } from '../../schema/messages/users.js'
import { encodeAccountPointers } from '../nostr-codecs/index.js'
import type { AccountStore, AppUserRow, UserRow } from './accounts.js'
import { maxWithdrawableSats, type FeePolicy } from './fees.js'
import { msatAsSats } from '../units/index.js'
import { BoundedMap } from '../limits/index.js'

export interface UserInfoDeps {
  accounts: AccountStore
  fees: FeePolicy
  /** The relay the pointers name (the first service relay, as upstream). */
  relayUrl(): string
  bridgeUrl: string
  /** Remembers encoded pointers (bech32 costs ~40 µs per UserInfo on a small machine); absent: encode each time. */
  pointers?: ClinkPointers
}

export interface UserPointers {
  noffer: string
  ndebit: string
  nmanage: string
}

export type ClinkPointers = (appPubkey: string, relay: string, identifier: string) => UserPointers

// The default offer's id is the app user's identifier (docs/pub-protocol.md, "Offers"): spontaneous amount.
const encodePointers: ClinkPointers = encodeAccountPointers

/** A bounded memo of users' CLINK pointers; the relay is part of the key, so a changed relay list is never stale. */
export function clinkPointerCache(capacity = 10_000): ClinkPointers {
  const memo = new BoundedMap<string, UserPointers>(capacity)
  return (appPubkey, relay, identifier) => {
    const key = `${appPubkey} ${relay} ${identifier}`
    let pointers = memo.get(key)
    if (!pointers) memo.set(key, (pointers = encodePointers(appPubkey, relay, identifier)))
    return pointers
  }
}

export async function describeUser(user: UserRow, appUser: AppUserRow, deps: UserInfoDeps): Promise<z.input<typeof UserInfo>> {
  const balance = msatAsSats(user.balance_msat)
  const app = (await deps.accounts.appById(appUser.app_id))!
  const pointers = (deps.pointers ?? encodePointers)(app.nostr_public_key, deps.relayUrl(), appUser.identifier)
  return {
    userId: user.id,
    balance,
    max_withdrawable: maxWithdrawableSats(balance, deps.fees),
    user_identifier: appUser.identifier,
    service_fee_bps: deps.fees.serviceFeeBps,
    network_max_fee_bps: 0,
    network_max_fee_fixed: deps.fees.serviceFeeFloorSats,
    ...pointers,
    callback_url: appUser.callback_url,
    bridge_url: deps.bridgeUrl,
    topic_id: appUser.topic_id,
  }
}
