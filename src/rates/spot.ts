// The current BTC price of a currency: every provider that trades it is asked in parallel, each within the
// timeout; failures are dropped, outliers trimmed, the median taken (trimmed-median.ts), and the answer kept
// for a short while so a burst of quotes costs the providers one round.
import type { Logger } from 'pino'
import type { Clock } from '../bus/index.js'
import { normalizeDecimal, parseDecimal } from './decimal.js'
import { getProviderJson, joinUrl, ProviderFailure } from './provider-request.js'
import { RateUnavailable, type RateQuote } from './rate-quote.js'
import { spotProviders, type SpotProviderName } from './spot-providers.js'
import { trimmedMedian, type ProviderPrice } from './trimmed-median.js'

export interface SpotRatesDeps {
  /** Base URL of each enabled provider; a provider without one is not asked. */
  baseUrls: Partial<Record<SpotProviderName, string>>
  fetch: typeof globalThis.fetch
  timeoutMs: number
  cacheMs: number
  clock: Clock
  log: Logger
}

export interface SpotRates {
  /** The current median price of BTC in `currency` (a known upper-case code); throws RateUnavailable. */
  spot(currency: string): Promise<RateQuote>
}

export function createSpotRates(deps: SpotRatesDeps): SpotRates {
  const cache = new Map<string, { quote: RateQuote; expiresAt: number }>()
  // Concurrent callers of one currency share one round of requests.
  const inFlight = new Map<string, Promise<RateQuote>>()

  async function ask(currency: string): Promise<RateQuote> {
    const configured = spotProviders.filter(p => deps.baseUrls[p.name] !== undefined)
    const asked = configured.filter(p => p.quotes?.has(currency) ?? true)
    if (asked.length === 0) {
      // The operator's switch, named: rates are off until [rates] providers names one (none by default).
      const reason =
        configured.length === 0
          ? 'no rate provider is configured; the operator names them in [rates] providers'
          : `no configured provider quotes it (${configured.map(p => p.name).join(', ')}); more can be named in [rates] providers`
      throw new RateUnavailable('upstream_failed', currency, undefined, reason)
    }
    const answers = await Promise.all(
      asked.map(async (provider): Promise<ProviderPrice | { provider: string; failure: string }> => {
        const url = joinUrl(deps.baseUrls[provider.name]!, provider.path(currency))
        try {
          const body = await getProviderJson(url, deps)
          return { provider: provider.name, price: positivePrice(provider.read(body, currency)) }
        } catch (err) {
          if (!(err instanceof ProviderFailure)) throw err
          return { provider: provider.name, failure: err.reason }
        }
      }),
    )
    const prices = answers.filter((a): a is ProviderPrice => 'price' in a)
    const failures = answers.filter((a): a is { provider: string; failure: string } => 'failure' in a)
    if (failures.length > 0) deps.log.debug({ currency, failures }, 'some rate providers gave no price')
    if (prices.length === 0) {
      const reasons = failures.map(f => `${f.provider}: ${f.failure}`).join('; ')
      deps.log.warn({ currency, failures }, 'no rate provider gave a price')
      throw new RateUnavailable('upstream_failed', currency, undefined, reasons)
    }
    const median = trimmedMedian(prices)
    if (median.dropped.length > 0) {
      deps.log.warn({ currency, dropped: median.dropped, prices }, 'rate providers far from the median were ignored')
    }
    return { currency, btcRate: median.btcRate, source: 'spot', providers: median.used }
  }

  return {
    spot(currency) {
      const cached = cache.get(currency)
      if (cached && deps.clock.now() < cached.expiresAt) return Promise.resolve(cached.quote)
      const pending = inFlight.get(currency)
      if (pending) return pending
      const round = ask(currency)
        .then(quote => {
          cache.set(currency, { quote, expiresAt: deps.clock.now() + deps.cacheMs })
          return quote
        })
        .finally(() => inFlight.delete(currency))
      inFlight.set(currency, round)
      return round
    },
  }
}

/** A provider's price as canonical decimal text; a zero, negative or malformed price is that provider failing. */
function positivePrice(text: string): string {
  let value
  try {
    value = parseDecimal(text)
  } catch {
    throw new ProviderFailure(`price is not a number: ${text.slice(0, 40)}`)
  }
  if (value.units <= 0n) throw new ProviderFailure(`price is not positive: ${text.slice(0, 40)}`)
  return normalizeDecimal(text)
}
