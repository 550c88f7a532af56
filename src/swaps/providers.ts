// The configured providers and what every swap flow shares: asking all of them at once, and the dependencies
// the transaction-swap and invoice-swap desks both use.
import type { Logger } from 'pino'
import { OperationError } from '../bus/index.js'
import type { LightningNode, Timers } from '../node/index.js'
import type { UserOperation, WalletPayment } from '../wallet/index.js'
import { ProviderError, shownUrl, type ProviderApi } from './provider-api.js'
import type { ProviderUpdates } from './provider-updates.js'
import type { ChainParams } from './swap-scripts.js'
import type { SwapStore } from './swap-store.js'
import { unixSeconds } from '../units/index.js'

export interface Provider {
  url: string
  /** Trusted with zero_conf: its lockups are claimed from the mempool, before our node sees them confirmed. */
  zeroConf: boolean
  api: ProviderApi
  updates: ProviderUpdates
}

/** What swaps need of the wallet: the normal payment path and its fee rules. */
export interface SwapWallet {
  payInvoiceFor(walletId: string, paymentRequest: string): Promise<WalletPayment>
  paymentByHash(paymentHash: string): Promise<WalletPayment | undefined>
  paymentOperationByHash(paymentHash: string): Promise<UserOperation | undefined>
  outgoingServiceFeeSats(payerId: string, amountSats: number): Promise<number>
  routingFeeLimitSats(amountSats: number): number
}

export interface SwapDeskDeps {
  store: SwapStore
  providers: Provider[]
  node: LightningNode
  network: ChainParams
  /** The chain's height as the node last reported it. */
  blockHeight(): Promise<number>
  random(bytes: number): Uint8Array
  now(): number
  timers: Timers
  log: Logger
}

/** A quote a provider could not give, and why (shown to the caller when none could). */
export class QuoteRefused extends Error {
  constructor(
    readonly providerUrl: string,
    readonly reason: string,
  ) {
    super(`${shownUrl(providerUrl)}: ${reason}`)
    this.name = 'QuoteRefused'
  }
}

/** Runs `quote` against every provider in parallel; the ones that succeed, or one error naming every failure. */
export async function quoteAll<T>(
  providers: Provider[],
  quote: (provider: Provider) => Promise<T>,
  log: Logger,
): Promise<T[]> {
  const settled = await Promise.allSettled(providers.map(quote))
  const quotes: T[] = []
  const reasons: string[] = []
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') return void quotes.push(result.value)
    const err = result.reason
    const shown = shownUrl(providers[i]!.url)
    if (err instanceof QuoteRefused || err instanceof ProviderError || err instanceof OperationError) {
      log.warn({ provider: shown, reason: err.message }, 'swap quote refused')
      reasons.push(err instanceof OperationError ? `${shown}: ${err.message}` : err.message)
    } else {
      log.error({ err, provider: shown }, 'swap quote failed unexpectedly')
      reasons.push(`${shown}: internal error`)
    }
  })
  if (quotes.length === 0) throw new OperationError('upstream_failed', `no swap provider gave a usable quote: ${reasons.join('; ')}`)
  return quotes
}

export function providerFor(providers: Provider[], url: string): Provider {
  const provider = providers.find(p => p.url === url)
  if (!provider) {
    throw new OperationError(
      'upstream_failed',
      `this swap's provider ${shownUrl(url)} is no longer configured; add it back to [swaps] providers to finish it`,
    )
  }
  return provider
}

/** A fresh secret key for one swap, from the injected randomness. */
export function swapSecretKey(random: (bytes: number) => Uint8Array, valid: (key: Uint8Array) => boolean): Uint8Array {
  for (;;) {
    const key = random(32)
    if (valid(key)) return key
  }
}

export const unixSecondsOrZero = (ms: number | null) => (ms === null ? 0 : unixSeconds(ms))
