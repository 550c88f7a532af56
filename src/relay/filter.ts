// REQ filters (NIP-01): checked once when the subscription opens, then kept as sets so that matching every live
// event against every open subscription stays cheap.
import type { RelayLimits } from './limits.js'
import { isHex64, type NostrEvent } from './nostr-event.js'

/** A validated filter; absent fields match everything. */
export interface Filter {
  ids?: string[]
  authors?: string[]
  kinds?: number[]
  /** Single-letter tag name → accepted values (`#e`, `#p`, `#d`, …). */
  tags: Map<string, string[]>
  since?: number
  until?: number
  /** Stored events to send before EOSE, already capped at `maxLimit`. */
  limit: number
}

/** A filter prepared for matching live events. */
export interface LiveFilter {
  ids?: Set<string>
  authors?: Set<string>
  kinds?: Set<number>
  tags: [string, Set<string>][]
  since?: number
  until?: number
}

const tagKey = /^#[a-zA-Z]$/

/** Validates one filter from a REQ; throws with an NIP-01 prefixed reason ("invalid:", "unsupported:"). */
/** `maxLimit` caps `limit` (and is the limit of a filter without one): the relay's, or more for the daemon's own. */
export function parseFilter(value: unknown, limits: RelayLimits, maxLimit = limits.maxLimit): Filter {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('invalid: a filter must be an object')
  const filter: Filter = { tags: new Map(), limit: maxLimit }
  for (const [key, field] of Object.entries(value)) {
    if (key === 'ids' || key === 'authors') {
      // NIP-01 dropped prefix matching: list entries are exact 64-character lowercase hex values.
      filter[key] = list(key, field, limits, isHex64, 'exact 64-character lowercase hex values')
    } else if (key === 'kinds') {
      filter.kinds = list(key, field, limits, isKindNumber, 'integers 0–65535')
    } else if (tagKey.test(key)) {
      const check = key === '#e' || key === '#p' ? isHex64 : (v: unknown): v is string => typeof v === 'string'
      filter.tags.set(key.slice(1), list(key, field, limits, check, key === '#e' || key === '#p' ? '64-character lowercase hex values' : 'strings'))
    } else if (key === 'since' || key === 'until') {
      if (!Number.isSafeInteger(field) || (field as number) < 0) throw new Error(`invalid: ${key} must be a non-negative integer`)
      filter[key] = field as number
    } else if (key === 'limit') {
      if (!Number.isSafeInteger(field) || (field as number) < 0) throw new Error('invalid: limit must be a non-negative integer')
      filter.limit = Math.min(field as number, maxLimit)
    } else if (key === 'search') {
      throw new Error('unsupported: search (NIP-50) is not supported by this relay')
    } else {
      // Ignoring an unknown field would silently widen the filter and send the client more than it asked for.
      throw new Error(`unsupported: filter field ${JSON.stringify(key).slice(0, 40)}`)
    }
  }
  return filter
}

export function liveFilter(filter: Filter): LiveFilter {
  return {
    ids: filter.ids && new Set(filter.ids),
    authors: filter.authors && new Set(filter.authors),
    kinds: filter.kinds && new Set(filter.kinds),
    tags: [...filter.tags].map(([name, values]) => [name, new Set(values)]),
    since: filter.since,
    until: filter.until,
  }
}

/** What matching reads of an event: everything but its content and signature. */
export type MatchedFields = Pick<NostrEvent, 'id' | 'pubkey' | 'kind' | 'created_at' | 'tags'>

export function matchesLive(filter: LiveFilter, event: MatchedFields): boolean {
  if (filter.ids && !filter.ids.has(event.id)) return false
  if (filter.authors && !filter.authors.has(event.pubkey)) return false
  if (filter.kinds && !filter.kinds.has(event.kind)) return false
  if (filter.since !== undefined && event.created_at < filter.since) return false
  if (filter.until !== undefined && event.created_at > filter.until) return false
  for (const [name, values] of filter.tags) {
    if (!event.tags.some(tag => tag[0] === name && tag.length > 1 && values.has(tag[1]))) return false
  }
  return true
}

/** Whether one of the filters matches the event (`matched`), and whether one that does names it by `#p` (`addressed`). */
export function matchOf(filters: readonly LiveFilter[], event: MatchedFields): 'none' | 'matched' | 'addressed' {
  let found: 'none' | 'matched' = 'none'
  for (const filter of filters) {
    if (!matchesLive(filter, event)) continue
    if (filter.tags.some(([name]) => name === 'p')) return 'addressed'
    found = 'matched'
  }
  return found
}

function isKindNumber(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535
}

function list<T>(key: string, field: unknown, limits: RelayLimits, check: (v: unknown) => v is T, what: string): T[] {
  if (!Array.isArray(field)) throw new Error(`invalid: ${key} must be an array`)
  if (field.length > limits.maxFilterValues) throw new Error(`invalid: ${key} has more than ${limits.maxFilterValues} values`)
  if (!field.every(check)) throw new Error(`invalid: ${key} must hold ${what}`)
  return field
}

/** True when the filter can match an event of an ephemeral kind (20000–29999): no `kinds`, or one of them. */
export function mayMatchEphemeral(filter: Filter): boolean {
  return !filter.kinds || filter.kinds.some(kind => kind >= 20000 && kind < 30000)
}
