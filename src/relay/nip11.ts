// The NIP-11 relay information document, answered on an HTTP GET with `Accept: application/nostr+json`. Clients
// read `limitation` to stay inside what the relay accepts instead of discovering it by refusals.
import { packageVersion } from '../version/index.js'
import type { RelayLimits } from './limits.js'

/** NIPs this relay implements: basic protocol, deletion, information document, expiration. */
export const supportedNips = [1, 9, 11, 40]

export interface RelayInformation {
  name: string
  description: string
  supported_nips: number[]
  software: string
  version: string
  limitation: {
    max_message_length: number
    max_subscriptions: number
    max_filters: number
    max_limit: number
    default_limit: number
    max_subid_length: number
    max_event_tags: number
    created_at_upper_limit: number
    auth_required: boolean
    payment_required: boolean
    restricted_writes: boolean
  }
  retention: { kinds: number[][]; time: number }[]
}

export function relayInformation(limits: RelayLimits): RelayInformation {
  return {
    name: 'relaypay embedded relay',
    description:
      'The Nostr relay built into relaypay for running without an external relay. Ephemeral events stay ' +
      `queryable for ${limits.ephemeralRetentionSeconds} s so a reconnecting daemon or wallet misses nothing (those ` +
      'heard live in memory only, bounded; the others on disk as well); a filter that ' +
      `can match them gets at most ${limits.maxEphemeralLimit} stored events.` +
      (limits.openWrites ? '' : ' Writes: only requests addressed to the wallets this relay serves.') +
      (limits.privateRequests ? ' Requests and replies are sent only to their author or addressee, authenticated (NIP-42).' : ''),
    supported_nips: limits.privateRequests ? [...supportedNips, 42].sort((a, b) => a - b) : supportedNips,
    software: 'relaypay',
    version: packageVersion(),
    limitation: {
      max_message_length: limits.maxMessageBytes,
      max_subscriptions: limits.maxSubscriptions,
      max_filters: limits.maxFilters,
      max_limit: limits.maxLimit,
      default_limit: limits.maxLimit,
      max_subid_length: limits.maxSubscriptionIdLength,
      max_event_tags: limits.maxEventTags,
      created_at_upper_limit: limits.maxFutureSeconds,
      auth_required: false,
      payment_required: false,
      restricted_writes: !limits.openWrites,
    },
    retention: [{ kinds: [[20000, 29999]], time: limits.ephemeralRetentionSeconds }],
  }
}
