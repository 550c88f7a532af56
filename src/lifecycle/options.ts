// Rooms' settings from the config, where a room takes them in its own shape (the composition in daemon.ts stays
// a list of rooms and the wires between them).
import type { Config } from '../config/index.js'
import type { RatesOptions } from '../rates/index.js'

/** The wallet's fee settings from `[fees]`. */
export function walletFees(fees: Config['fees']) {
  return {
    serviceFeeBps: fees.service_fee_bps,
    serviceFeeFloorSats: fees.service_fee_floor_sats,
    routingFeeLimitBps: fees.routing_fee_limit_bps,
    routingFeeFloorSats: fees.routing_fee_floor_sats,
    internalUserFeeBps: fees.internal_user_fee_bps,
    internalRootFeeBps: fees.internal_root_fee_bps,
  }
}

/** Only the rate providers the operator named: no public API is contacted by default. */
export function rateProviders(rates: Config['rates']): RatesOptions['providers'] {
  return {
    coinbase: false, kraken: false, bitstamp: false, binance: false, bitfinex: false, yadio: false, coingecko: false,
    ...rates.providers,
  }
}

/** The Nostr transport's limits from `[nostr]` and the fees its pushes quote. */
export function nostrTransportLimits(config: Config) {
  return {
    maxEventAgeSeconds: config.nostr.max_event_age_seconds,
    maxEventBytes: config.nostr.max_event_bytes,
    maxContentLength: config.nostr.max_content_length,
    fees: { serviceFeeFloor: config.fees.service_fee_floor_sats, serviceFeeBps: config.fees.service_fee_bps },
  }
}
