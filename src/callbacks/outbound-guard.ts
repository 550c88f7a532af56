// The SSRF guard for URLs that users hand us (paid-invoice callbacks): only http(s), no credentials in the URL,
// and never an address inside the operator's network (private, link-local, metadata, CGNAT, multicast). Loopback
// only when the operator allows it (tests). The check runs on the address the connection actually uses (a custom
// `lookup`), so a name that resolves to a public address at validation time cannot switch to a private one later.
import dns from 'node:dns'
import net from 'node:net'
import { OperationError } from '../bus/errors.js'

const blocked = new net.BlockList()
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(prefix, bits, 'ipv4')
for (const [prefix, bits] of [['::', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6')
}
const loopback = new net.BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

export interface GuardOptions {
  allowLoopback: boolean
}

/** Static checks on a URL a user wants us to call; throws `invalid_input` naming the problem. */
export function checkOutboundUrl(text: string, opts: GuardOptions): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new OperationError('invalid_input', 'callback URL is not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OperationError('invalid_input', 'callback URL must use http or https')
  }
  if (url.username || url.password) throw new OperationError('invalid_input', 'callback URL must not carry credentials')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (net.isIP(host) && !addressAllowed(host, opts)) {
    throw new OperationError('invalid_input', 'callback URL points into a private network')
  }
  return url
}

export function addressAllowed(address: string, opts: GuardOptions): boolean {
  const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4'
  // IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
  const mapped = family === 'ipv6' && /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return addressAllowed(mapped[1]!, opts)
  if (loopback.check(address, family)) return opts.allowLoopback
  return !blocked.check(address, family)
}

/** A `lookup` for http.request that refuses to connect to a forbidden address. */
export function guardedLookup(opts: GuardOptions): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
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
