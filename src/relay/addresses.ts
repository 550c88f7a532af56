// Who a client is, for the per-address caps: the socket's peer address, IPv6 reduced to its /64 (one subscriber
// usually holds a whole /64, so counting single IPv6 addresses would let one client be thousands). A forwarded
// header is read only from a configured reverse proxy: anyone else could write any address into it and rotate
// through them (as khatru's trust of any X-Forwarded-For allows). The daemon's own connections are exempt by the
// secret they carry (server.ts), never by their address: a local proxy and an attacker on this machine both
// arrive from loopback.
import net from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { Clock } from '../bus/index.js'
import { tokenBucket, type RelayLimits, type TokenBucket } from './limits.js'

export function clientAddress(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const peer = plain(req.socket.remoteAddress ?? 'unknown')
  if (!trustedProxies.includes(peer)) return prefixOf(peer)
  const forwarded = req.headers['x-forwarded-for']
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').map(hop => plain(hop.trim()))
  // The rightmost hop that is not one of our proxies is the one our proxy saw; anything left of it is the client's word.
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!
    if (net.isIP(hop) && !trustedProxies.includes(hop)) return prefixOf(hop)
  }
  return prefixOf(peer)
}

/** `::ffff:1.2.3.4` is the IPv4 client 1.2.3.4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address
}

/** IPv4 as is; IPv6 as its /64 prefix (`2001:db8:1:2::/64`). */
export function prefixOf(address: string): string {
  if (!net.isIPv6(address)) return address
  const [head, tail] = address.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  return groups.slice(0, 4).map(group => group.replace(/^0+(?=.)/, '').toLowerCase()).join(':') + '::/64'
}

/** What one client address holds and may still spend, across all its connections. */
export interface AddressState {
  connections: number
  /** Refused connection attempts whose 429 is held back (server.ts). */
  heldRefusals: number
  subscriptions: number
  /** Stored events sent to this address. */
  reads: TokenBucket
  /** Bytes of them (charged after each is sent, so it may go below zero). */
  readBytes: TokenBucket
  /** Events accepted from this address. */
  writes: TokenBucket
  /** Messages of any kind read from this address. */
  messages: TokenBucket
  /** New connections from this address. */
  attempts: TokenBucket
  /** Bytes of request events accepted from this address. */
  requestBytes: TokenBucket
  /** Keys this address has not sent requests from before (within `keys`). */
  newKeys: TokenBucket
  /** The keys this address sent requests from lately, oldest first (at most `rememberedKeys`). */
  keys: Map<string, true>
}

export interface AddressBook {
  get(address: string): AddressState
  /** Forgets addresses with no connection whose budgets are full again (a reconnect must not refill them). */
  prune(): void
  size(): number
}

export function addressBook(clock: Clock, limits: () => RelayLimits): AddressBook {
  const states = new Map<string, AddressState>()
  return {
    get(address) {
      let state = states.get(address)
      if (!state) {
        state = {
          connections: 0,
          heldRefusals: 0,
          subscriptions: 0,
          reads: tokenBucket(clock, () => limits().storedEventsPerSecondPerAddress, () => 2 * limits().storedEventsPerSecondPerAddress),
          readBytes: tokenBucket(clock, () => limits().storedBytesPerSecondPerAddress, () => 2 * limits().storedBytesPerSecondPerAddress),
          writes: tokenBucket(clock, () => limits().eventsPerSecondPerAddress, () => 5 * limits().eventsPerSecondPerAddress),
          messages: tokenBucket(clock, () => limits().messagesPerSecondPerAddress, () => 2 * limits().messagesPerSecondPerAddress),
          attempts: tokenBucket(clock, () => limits().connectionsPerSecondPerAddress, () => 5 * limits().connectionsPerSecondPerAddress),
          requestBytes: tokenBucket(clock, () => limits().requestBytesPerSecondPerAddress, () => 5 * limits().requestBytesPerSecondPerAddress),
          newKeys: tokenBucket(clock, () => limits().newKeysPerMinutePerAddress / 60, () => limits().newKeysPerMinutePerAddress),
          keys: new Map(),
        }
        states.set(address, state)
      }
      return state
    },
    prune() {
      for (const [address, state] of states) {
        const budgets = [state.reads, state.readBytes, state.writes, state.messages, state.attempts, state.requestBytes, state.newKeys]
        // A full new-key budget forgets the keys too: the address could spend it on them again anyway.
        if (state.connections === 0 && state.heldRefusals === 0 && budgets.every(budget => budget.full())) states.delete(address)
      }
    },
    size: () => states.size,
  }
}
