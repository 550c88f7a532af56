// The one SSRF guard for every URL a caller hands us that the daemon then connects to (paid-invoice callbacks,
// the relays of a zap request): only the expected schemes, no credentials in the URL, and never an address inside
// the operator's network (private, link-local, metadata, CGNAT, multicast, and the IPv6 forms that carry an IPv4
// address). Loopback only when the operator allows it (tests). The check runs on the address the connection
// actually uses (a custom `lookup`), so a name that resolves to a public address at validation time cannot switch
// to a private one later; IP literals, which skip the lookup, are checked on the URL itself.
import dns from 'node:dns'
import net from 'node:net'
import { WebSocket, type ClientOptions } from '../vendor/ws.js'
import { OperationError } from '../bus/index.js'

const blocked = new net.BlockList()
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(prefix, bits, 'ipv4')
for (const [prefix, bits] of [
  // ::/96 holds the unspecified address and the deprecated IPv4-compatible form (::127.0.0.1); ::ffff:0:0/96 is
  // SIIT's IPv4-translated form; 64:ff9b::/96 NAT64; 2002::/16 6to4 and 2001::/32 Teredo embed IPv4 addresses.
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32],
  ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6')
}
const loopback = new net.BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

export interface GuardOptions {
  allowLoopback: boolean
}

export interface UrlKind {
  /** How the URL is named in a refusal ("callback URL", "relay URL"). */
  what: string
  /** Allowed schemes with their colon, e.g. `['ws:', 'wss:']`. */
  protocols: readonly string[]
}

const callbackUrl: UrlKind = { what: 'callback URL', protocols: ['http:', 'https:'] }
export const relayUrl: UrlKind = { what: 'relay URL', protocols: ['ws:', 'wss:'] }

/** Static checks on a URL a user wants us to call; throws `invalid_input` naming the problem. */
export function checkOutboundUrl(text: string, opts: GuardOptions, kind: UrlKind = callbackUrl): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new OperationError('invalid_input', `${kind.what} is not a valid URL`)
  }
  if (!kind.protocols.includes(url.protocol)) {
    throw new OperationError('invalid_input', `${kind.what} must use ${kind.protocols.map(p => p.slice(0, -1)).join(' or ')}`)
  }
  if (url.username || url.password) throw new OperationError('invalid_input', `${kind.what} must not carry credentials`)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (net.isIP(host) && !addressAllowed(host, opts)) {
    throw new OperationError('invalid_input', `${kind.what} points into a private network`)
  }
  return url
}

/**
 * Why the guard would not let us publish to a relay a caller named (a zap request's `relays`), or undefined when it
 * would: the service's own relays always (the embedded one is on loopback), any other as checkOutboundUrl says.
 */
export function relayRefusal(serviceRelays: readonly string[], opts: GuardOptions): (url: string) => string | undefined {
  return url => {
    if (serviceRelays.includes(url)) return undefined
    try {
      checkOutboundUrl(url, opts, relayUrl)
      return undefined
    } catch (err) {
      return (err as Error).message
    }
  }
}

export function addressAllowed(address: string, opts: GuardOptions): boolean {
  const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4'
  // IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
  const mapped = family === 'ipv6' && /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return addressAllowed(mapped[1]!, opts)
  if (loopback.check(address, family)) return opts.allowLoopback
  return !blocked.check(address, family)
}

type Resolve = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void

/** A `lookup` for http.request that refuses to connect to a forbidden address. `resolve` is dns.lookup but in tests. */
export function guardedLookup(opts: GuardOptions, resolve: Resolve = dns.lookup): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4)
      const list = addresses as dns.LookupAddress[]
      const allowed = list.filter(a => addressAllowed(a.address, opts))
      if (allowed.length === 0) {
        return callback(Object.assign(new Error(`${hostname} resolves only to forbidden addresses`), { code: 'EFORBIDDEN' }), '', 4)
      }
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed)
      callback(null, allowed[0]!.address, allowed[0]!.family)
    })
  }
}

/**
 * A WebSocket class (for nostr-tools' `websocketImplementation`) that connects only where the guard allows: the
 * URL is checked as it is constructed and every name it resolves goes through the guarded lookup. A refused URL
 * fails as a connection that never opened.
 */
export function guardedWebSocket(opts: GuardOptions): new (address: string | URL, protocols?: string | string[]) => WebSocket {
  const lookup = guardedLookup(opts)
  return class GuardedWebSocket extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      checkOutboundUrl(String(address), opts, relayUrl)
      const guarded: ClientOptions & { lookup: net.LookupFunction } = { lookup }
      super(address, protocols ?? [], guarded)
    }
  }
}
