// The LNURL room's door: LNURL-pay and Lightning addresses, LNURL-withdraw, LNURL-channel, and
// NIP-57 zap receipts. `createLnurl` builds the handlers and starts the receipt publisher; call it before the
// wallet starts so that payments credited at start-up still get their receipts.
import type { Logger } from 'pino'
import { takeOrRefuse, type Observable, type Clock, type DomainEvent, type HandlerTable, type CallContext } from '../bus/index.js'
import { RateLimiter, addressKey, type RateBudget } from '../limits/index.js'
import type { SqlStore } from '../store/index.js'
import type { LightningNode } from '../node/index.js'
import type { Wallet, WalletAccounts } from '../wallet/index.js'
import { lnurlKeysStore } from './keys-store.js'
import { serviceUrl, type ServiceUrlConfig } from './service-url.js'
import { payHandlers } from './handlers/pay.js'
import { withdrawHandlers, type WithdrawFees } from './handlers/withdraw.js'
import { channelHandlers } from './handlers/channel.js'
import { payingHandlers } from './handlers/paying.js'
import type { GuardOptions } from '../callbacks/index.js'
import { publishZapReceipts, type ZapPublisher } from './zaps.js'

export { lnurlDisabledMessage } from './service-url.js'
export { encodeLnurl, decodeLnurl } from './lnurl-string.js'

export interface LnurlDeps extends ServiceUrlConfig {
  sql: SqlStore
  node: LightningNode
  accounts: Pick<WalletAccounts, 'userById' | 'appUserOf' | 'appUser' | 'appById'>
  wallet: Pick<Wallet, 'createInvoiceFor' | 'payInvoiceFor' | 'invoiceByPaymentHash' | 'nostr'>
  defaultAppId: string
  events$: Observable<DomainEvent>
  /** Signs and queues Nostr events to the relays given (the zap request's). */
  publisher: ZapPublisher
  metaText: string
  /** Callbacks (pay, withdraw, channel) per client address: each makes an invoice, a payment or a channel. */
  callbacks: RateBudget
  fees: WithdrawFees
  /** Paying out to a stranger's LNURL or Lightning address: the outbound guard (`[callbacks] allow_loopback`). */
  outbound: GuardOptions
  random(bytes: number): Uint8Array
  clock: Clock
  log: Logger
}

export function createLnurl(deps: LnurlDeps): { handlers: HandlerTable; stop(): void } {
  const keys = lnurlKeysStore(deps.sql, deps.random, () => deps.clock.now())
  const url = serviceUrl(deps)
  const { accounts, wallet, node } = deps
  const receipts = publishZapReceipts({
    events$: deps.events$,
    keys,
    invoice: paymentHash => wallet.invoiceByPaymentHash(paymentHash),
    signingKey: async invoice => {
      const appId = invoice.appId ?? (await accounts.appUserOf(invoice.walletId))?.app_id ?? deps.defaultAppId
      return (await accounts.appById(appId))?.nostr_private_key
    },
    preimage: async paymentHash => (await node.lookupInvoice(paymentHash))?.preimage ?? null,
    publisher: deps.publisher,
    log: deps.log,
  })
  const handlers: HandlerTable = {
    ...payHandlers({
      keys, url, accounts, wallet, node, metaText: deps.metaText, defaultAppId: deps.defaultAppId,
      zapRelayRefusal: relay => deps.publisher.refusalOf(relay),
    }),
    ...withdrawHandlers({ keys, url, accounts, wallet, node, fees: deps.fees, metaText: deps.metaText }),
    ...channelHandlers({ keys, url, node }),
    ...payingHandlers({ guard: deps.outbound }),
  }
  // Strangers call these with no credentials, and each writes something: a budget per client address.
  const callbacks = new RateLimiter(deps.callbacks)
  const table = handlers as Record<string, (input: unknown, ctx: CallContext) => unknown>
  for (const name of ['HandleLnurlPay', 'HandleLnurlWithdraw', 'HandleLnurlChannel']) {
    const inner = table[name]!
    table[name] = async (input, ctx) => {
      takeOrRefuse(callbacks, addressKey(ctx.clientAddress), deps.clock.now(), 'LNURL callbacks from this address')
      return inner(input, ctx)
    }
  }
  return { handlers, stop: () => receipts.unsubscribe() }
}
