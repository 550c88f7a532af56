// An independent LNURL client for the tests, written from LUD-01/06/03 with fetch and @scure/base (the
// `lnurl-pay` package is not installed here). The daemon advertises `[http] public_url` (http://127.0.0.1:1,
// where nothing listens) in its links, so the client sends each request to the test daemon's real address
// instead: the path and query are what the daemon put in the link.
import { bech32 } from '@scure/base'
import { decode as lightDecode } from 'light-bolt11-decoder'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

export const publicUrl = 'http://127.0.0.1:1'
export const publicDomain = '127.0.0.1:1'

/** The callback budget per address is raised: these tests call many callbacks from one loopback address. */
export function lnurlDaemonConfig(jwtSecret: string, opts: { allowLoopback?: boolean } = {}): string {
  return `[http]\npublic_url = "${publicUrl}"\n[lnurl]\nallow_loopback = ${opts.allowLoopback ?? true}\ncallbacks_burst = 1000\n[auth]\njwt_secret = "${jwtSecret}"\n`
}

export function startLnurlDaemon(jwtSecret: string): Promise<TestDaemon> {
  return startDaemon({ config: lnurlDaemonConfig(jwtSecret) })
}

/** LUD-01: the URL inside an lnurl string. */
export function decodeLnurl(lnurl: string): string {
  const { prefix, words } = bech32.decode(lnurl as `${string}1${string}`, 2000)
  if (prefix !== 'lnurl') throw new Error(`unexpected prefix ${prefix}`)
  return new TextDecoder().decode(bech32.fromWords(words))
}

/** GET a URL the daemon handed out, at the test daemon's real address; returns the JSON body. */
export async function getAdvertised(daemon: TestDaemon, advertised: string, params: Record<string, string> = {}): Promise<any> {
  if (!advertised.startsWith(publicUrl + '/')) throw new Error(`link does not start with the public URL: ${advertised}`)
  const url = new URL(daemon.url + advertised.slice(publicUrl.length))
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  const res = await fetch(url)
  return res.json()
}

/** LUD-16: the payRequest behind `name@domain`. */
export async function resolveAddress(daemon: TestDaemon, address: string): Promise<any> {
  const [name, domain] = address.split('@')
  if (domain !== publicDomain) throw new Error(`unexpected domain ${domain}`)
  return getAdvertised(daemon, `${publicUrl}/.well-known/lnurlp/${encodeURIComponent(name!)}`)
}

/** What light-bolt11-decoder reads from a payment request, by section name. */
export function invoiceSections(paymentRequest: string): Record<string, unknown> {
  const decoded = lightDecode(paymentRequest)
  const sections: Record<string, unknown> = {}
  for (const section of decoded.sections) if ('value' in section) sections[section.name] = section.value
  return sections
}
