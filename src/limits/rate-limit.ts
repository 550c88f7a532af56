// Token buckets for what strangers may ask for: each key (a client address, a restaurant) holds up to
// `burst` tokens, refilled at `perMinute`; a call takes one or learns the time until the next one (the bus turns
// that into a refusal with Retry-After). The buckets live in a bounded memo, so a flood of new keys costs memory only
// up to its capacity (the oldest bucket is forgotten first, which at worst hands an old key a fresh burst).
import { BoundedMap } from './bounded.js'

export interface RateBudget {
  perMinute: number
  burst: number
}

interface Bucket {
  tokens: number
  at: number
}

export class RateLimiter {
  private readonly buckets: BoundedMap<string, Bucket>

  constructor(
    readonly budget: RateBudget,
    capacity = 16_384,
  ) {
    this.buckets = new BoundedMap(capacity)
  }

  /** The ms until `key` has a token at `now` (0: it has one now), taking nothing. */
  waitMs(key: string, now: number): number {
    const { perMinute, burst } = this.budget
    const bucket = this.buckets.get(key)
    if (!bucket) return 0
    const perMs = perMinute / 60_000
    const tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
    if (tokens >= 1) return 0
    return perMs > 0 ? Math.ceil((1 - tokens) / perMs) : 60_000
  }

  /** Takes a token for `key` at `now` (ms): 0 when granted, else the ms until one is available (nothing taken). */
  take(key: string, now: number): number {
    const { perMinute, burst } = this.budget
    const perMs = perMinute / 60_000
    const bucket = this.buckets.touch(key) ?? { tokens: burst, at: now }
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
    bucket.at = now
    this.buckets.set(key, bucket)
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return perMs > 0 ? Math.ceil((1 - bucket.tokens) / perMs) : 60_000
  }
}

/**
 * The key a client address is limited under: the address itself for IPv4 (also written as IPv4-mapped IPv6), its
 * /64 prefix for IPv6, where one subscriber holds a whole /64. Unknown (no socket address): one shared key.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown'
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (!address.includes(':')) return address
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`
}

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0')
  return [...left, ...zeros, ...right].map(group => group.toLowerCase().replace(/^0+(?=.)/, ''))
}
