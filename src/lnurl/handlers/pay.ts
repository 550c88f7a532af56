// LNURL-pay (LUD-06, LUD-12, LUD-16) and Lightning addresses: persistent pay
// links, the payRequest answer, the callback that issues the invoice, and human-readable address names.
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { type HandlerTable, type OutputOf, OperationError } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { Wallet, WalletAccounts } from '../../wallet/index.js'
import type { LnurlKeysStore, PayKeyRow } from '../keys-store.js'
import type { ServiceUrl } from '../service-url.js'
import { encodeLnurl } from '../lnurl-string.js'
import { receiptRelays, validateZapRequest } from '../../nostr-codecs/index.js'

/** Upstream's floor: 10 sats. */
export const minSendableMsat = 10_000
/** Upstream's answer when the node reports no inbound liquidity (the provider may still take it). */
const fallbackMaxSendableMsat = 10_000_000_000
/** LUD-12: the longest comment the callback takes. */
export const commentAllowed = 144
const invoiceExpirySeconds = 3600
const addressName = /^[a-z0-9._-]{1,64}$/
const hexPubkey = /^[0-9a-f]{64}$/

export interface PayDeps {
  keys: LnurlKeysStore
  url: ServiceUrl
  accounts: Pick<WalletAccounts, 'userById' | 'appUserOf' | 'appUser' | 'appById'>
  wallet: Pick<Wallet, 'createInvoiceFor' | 'nostr'>
  node: Pick<LightningNode, 'getBalances'>
  metaText: string
  /** The app of wallets that belong to no app user (they still get a pay key and a receipt signer). */
  defaultAppId: string
  /** Why a relay a zap request names would not get its receipt (the receipt publisher's guard); undefined if it would. */
  zapRelayRefusal(url: string): string | undefined
}

export function payHandlers(deps: PayDeps): HandlerTable {
  const { keys, url, accounts } = deps

  const metadataFor = (key: PayKeyRow): string => {
    const entries: string[][] = [['text/plain', deps.metaText]]
    if (key.identifier !== '') entries.push(['text/identifier', `${key.identifier}@${url.domain()}`])
    return JSON.stringify(entries)
  }

  const payInfo = async (key: PayKeyRow, callback: string): Promise<OutputOf<'GetLnurlPayInfo'>> => {
    const app = await accounts.appById(key.app_id)
    const remoteMsat = (await deps.node.getBalances()).channelsRemoteMsat
    return {
      tag: 'payRequest',
      callback,
      minSendable: minSendableMsat,
      maxSendable: remoteMsat > 0 ? remoteMsat : fallbackMaxSendableMsat,
      metadata: metadataFor(key),
      allowsNostr: app !== undefined,
      nostrPubkey: app?.nostr_public_key ?? '',
      commentAllowed,
    }
  }

  const callbackFor = (k1: string) => `${url.base()}/api/guest/lnurl_pay/handle?k1=${k1}`
  const appOf = async (userId: string) => (await accounts.appUserOf(userId))?.app_id ?? deps.defaultAppId

  /** The wallet behind an address: a claimed name, else (upstream) an app user's hex Nostr pubkey. */
  const userForAddress = async (name: string): Promise<string | undefined> =>
    (await keys.userForAddress(name)) ?? (hexPubkey.test(name) ? (await deps.wallet.nostr.appUserByPubkey(name))?.user_id : undefined)

  return {
    GetLnurlPayLink: async (_input, ctx) => {
      const key = await keys.payKeyFor(ctx.caller.userId, ctx.caller.appId)
      return { lnurl: encodeLnurl(`${url.base()}/api/guest/lnurl_pay/info?k1=${key.k1}`), k1: key.k1 }
    },

    GetLnurlPayInfo: async ({ k1 }) => {
      url.base()
      const key = await keys.payKey(k1)
      if (!key) throw new OperationError('not_found', 'invalid pay key')
      return payInfo(key, callbackFor(key.k1))
    },

    GetAppUserLNURLInfo: async ({ user_identifier, base_url_override }, ctx) => {
      url.base()
      const appUser = await accounts.appUser(user_identifier)
      if (!appUser || appUser.app_id !== ctx.caller.appId) throw new OperationError('not_found', 'app user not found')
      const key = await keys.payKeyFor(appUser.user_id, appUser.app_id)
      const callback = base_url_override ? `${base_url_override}?k1=${key.k1}` : callbackFor(key.k1)
      return payInfo(key, callback)
    },

    HandleLnurlAddress: async ({ address_name }) => {
      url.base()
      const name = address_name.toLowerCase()
      const userId = await userForAddress(name)
      if (userId === undefined) throw new OperationError('not_found', 'no such lightning address')
      const key = await keys.payKeyFor(userId, await appOf(userId), name)
      return payInfo(key, callbackFor(key.k1))
    },

    HandleLnurlPay: async ({ k1, amount, nostr, comment }) => {
      url.base()
      const key = await keys.payKey(k1)
      if (!key) throw new OperationError('not_found', 'invalid pay key')
      if (!/^\d{1,16}$/.test(amount)) throw new OperationError('invalid_input', 'amount must be a number of millisats')
      const amountMsat = Number(amount)
      const remoteMsat = (await deps.node.getBalances()).channelsRemoteMsat
      const maxMsat = remoteMsat > 0 ? remoteMsat : fallbackMaxSendableMsat
      if (amountMsat < minSendableMsat || amountMsat > maxMsat) {
        throw new OperationError('invalid_input', `amount must be between ${minSendableMsat} and ${maxMsat} millisats`)
      }
      if (amountMsat % 1000 !== 0) throw new OperationError('invalid_input', 'amount must be a whole number of sats')
      if (comment !== undefined && comment.length > commentAllowed) {
        throw new OperationError('invalid_input', `comment is longer than ${commentAllowed} characters`)
      }
      // LUD-06 commits the invoice to the metadata; NIP-57 commits it to the zap request instead.
      const zap = nostr ? validateZapRequest(nostr, amountMsat) : undefined
      if (zap) receiptRelays(zap, deps.zapRelayRefusal)
      const committed = zap ? zap.description : metadataFor(key)
      const invoice = await deps.wallet.createInvoiceFor(key.user_id, {
        amountMsat,
        memo: deps.metaText,
        expirySeconds: invoiceExpirySeconds,
        descriptionHash: bytesToHex(sha256(new TextEncoder().encode(committed))),
        appId: key.app_id,
        ...(zap ? { zapRequest: zap.description } : {}),
        ...(comment ? { extra: { lnurlComment: comment } } : {}),
      })
      return { pr: invoice.paymentRequest, routes: [] }
    },

    SetLightningAddress: async ({ name }, ctx) => {
      const domain = url.domain()
      const wanted = name.toLowerCase()
      if (!addressName.test(wanted)) {
        throw new OperationError('invalid_input', 'a lightning address name is 1 to 64 of a-z, 0-9, ".", "_" and "-"')
      }
      // 64-hex names are the upstream pubkey addresses; claiming one would shadow someone's key.
      if (hexPubkey.test(wanted)) throw new OperationError('invalid_input', 'a 64-hex name is reserved for Nostr pubkeys')
      if (!(await keys.claimAddress(wanted, ctx.caller.userId))) {
        throw new OperationError('conflict', 'this lightning address is already taken')
      }
      return { name: wanted, address: `${wanted}@${domain}` }
    },
  }
}
