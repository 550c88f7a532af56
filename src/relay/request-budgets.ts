// The request kinds' own budgets per client address (limits.ts says why): the largest request event, the request
// bytes per second, and the keys an address may send requests from that it has not used lately. Checked before the
// signature: the address is the sender's own, so a forged author spends only its own budgets.
import type { AddressState } from './addresses.js'
import type { RelayLimits } from './limits.js'

/**
 * Keys remembered per address: one client's keys (a wallet with a few accounts, an app server with its users) are
 * not charged again while they keep talking. Bounded: at 1,024 addresses about 15 MB at most.
 */
const rememberedKeys = 128

/** Why a stranger's request is refused, and for how long its connection should not be read; undefined: it may pass. */
export function requestRefusal(state: AddressState, limits: RelayLimits, pubkey: string, bytes: number): { reason: string; pauseMs?: number } | undefined {
  // An oversized request is charged as one of the largest size: a flood of them is throttled like any other.
  const charge = Math.min(bytes, limits.maxRequestBytes)
  if (!state.requestBytes.take(charge)) {
    return { reason: 'rate-limited: too many request bytes from your address, slow down', pauseMs: state.requestBytes.msUntil(charge) }
  }
  if (bytes > limits.maxRequestBytes) {
    return { reason: `invalid: a request event is at most ${limits.maxRequestBytes} bytes; this one is ${bytes}` }
  }
  if (!takeKey(state, pubkey)) {
    return { reason: `rate-limited: too many new keys from your address; one more in ${Math.ceil(state.newKeys.msUntilOne() / 1000)} s` }
  }
  return undefined
}

/**
 * Charges a request's key to its address: true when the address sent from it lately or may use one more new key
 * (which it then remembers), false when its new-key budget is spent.
 */
function takeKey(state: AddressState, pubkey: string): boolean {
  if (state.keys.delete(pubkey)) {
    state.keys.set(pubkey, true) // the most recent again
    return true
  }
  if (!state.newKeys.take()) return false
  state.keys.set(pubkey, true)
  if (state.keys.size > rememberedKeys) state.keys.delete(state.keys.keys().next().value!)
  return true
}
