// Turns an operation's fuzzed input into an HTTP request the way a confused or hostile client would send it: the
// credential its caller kind needs (or a wrong or broken one), path and query parameters from the input (or broken
// percent-encodings), and a JSON body (or bytes that are not JSON, not UTF-8, or larger than the limit).
import fc from 'fast-check'
import type { CatalogueEntry } from '../../../schema/catalogue.js'
import type { AuthKind } from '../../../schema/operation.js'
import { encodeJson, type FuzzSamples } from './bad-values.js'
import { inputCases } from './input-cases.js'

export type CredentialKind =
  | 'none' | 'admin' | 'adminBearer' | 'metrics' | 'app' | 'user' | 'invoiceKey' | 'adminKey'
  | 'spareUser' | 'spareInvoiceKey' | 'spareAdminKey'

/** Headers for each kind of credential, from the daemon under test. */
export type Credentials = Record<CredentialKind, Record<string, string>>

/** Which credentials let each caller kind through (as test/auth/catalogue-auth.test.ts proves). */
const rightCredentials: Record<AuthKind, CredentialKind[]> = {
  guest: ['none'],
  admin: ['admin', 'adminBearer'],
  metrics: ['metrics'],
  app: ['app'],
  user: ['user'],
  guestPub: ['none'],
  walletInvoice: ['invoiceKey', 'adminKey'],
  walletAdmin: ['adminKey'],
  operator: ['adminBearer'],
  member: ['adminBearer', 'user', 'invoiceKey', 'adminKey'],
  guestOrWallet: ['none', 'invoiceKey', 'adminKey'],
  nwcConnection: [], // NIP-47 methods have no HTTP route (Nostr kind 23194 only)
  clinkRequester: [], // CLINK requests have no HTTP route (Nostr kinds 21001–21003 only)
}

/**
 * Operations that would take the fuzzer's own credentials or extensions away (rotated keys, a disabled extension)
 * run as a spare user, so the rest of the campaign keeps reaching handlers.
 */
const disruptive = new Set(['RotateWalletKeys', 'DisableExtension', 'HostDisableExtension'])
const spare: Partial<Record<CredentialKind, CredentialKind>> = { user: 'spareUser', invoiceKey: 'spareInvoiceKey', adminKey: 'spareAdminKey' }

export interface HttpCase {
  op: string
  how: string
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
}

const brokenSegments = ['%', '%E0%A4%A', '%ZZ', '%00', '%C0%AF', '..', '%2e%2e', '%2F', 'a'.repeat(5000), '%F0%9F%92%A9', '%ED%A0%80']

const brokenCredentials: fc.Arbitrary<Record<string, string>> = fc.constantFrom<Record<string, string>>(
  { authorization: 'Bearer ' },
  { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJ1c2VyX2lkIjoiYSJ9.' },
  { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.AAAA' },
  { authorization: 'Basic YTpi' },
  { authorization: 'x'.repeat(8000) },
  { authorization: '\u00ff\u00fe' },
  { 'x-api-key': '' },
  { 'x-api-key': "' OR 1=1 --" },
  { 'x-api-key': 'f'.repeat(32) },
)

/** Bytes that are not the JSON body the route expects. */
const brokenBodies: fc.Arbitrary<{ how: string; body: Buffer; contentType?: string }> = fc.oneof(
  fc.constantFrom(
    { how: 'bad utf-8 in a string', body: Buffer.concat([Buffer.from('{"memo":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('"}')]) },
    { how: 'bad utf-8 key', body: Buffer.concat([Buffer.from('{"'), Buffer.from([0xc3, 0x28]), Buffer.from('":1}')]) },
    { how: 'utf-16 body', body: Buffer.from('{"a":1}', 'utf16le') },
    { how: 'bom', body: Buffer.from('\ufeff{"a":1}') },
    { how: 'truncated json', body: Buffer.from('{"amount": 1') },
    { how: 'trailing garbage', body: Buffer.from('{} {}') },
    { how: 'nul bytes', body: Buffer.from('{"a":"\u0000"}\u0000') },
    { how: 'duplicate keys', body: Buffer.from('{"amount":1,"amount":-1,"amount":"x"}') },
    { how: 'proto key', body: Buffer.from('{"__proto__":{"admin":true,"amount":5},"constructor":{"prototype":{"x":1}}}') },
    { how: 'form body', body: Buffer.from('a=1&b=2'), contentType: 'application/x-www-form-urlencoded' },
    { how: 'huge number', body: Buffer.from(`{"amount":1${'0'.repeat(400)}}`) },
    { how: 'json literal', body: Buffer.from('null') },
    { how: 'json string', body: Buffer.from('"{}"') },
    { how: 'lone surrogate escape', body: Buffer.from('{"memo":"\\ud800","name":"\\udfff"}') },
  ),
  fc.uint8Array({ maxLength: 200 }).map(bytes => ({ how: 'random bytes', body: Buffer.from(bytes) })),
)

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/:(\w+)|\{(\w+)\}/g, (_, a: string | undefined, b: string | undefined) => values[(a ?? b)!] ?? 'x')
}

/** A path or query value as text, cut short: URLs past Node's 16 KiB header limit are http-raw.test.ts's subject. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : encodeJson(value)).slice(0, 2000)

/** encodeURIComponent for any string: lone surrogates become U+FFFD as they would in a browser's URL. */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map(b => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('')
}

export interface HttpCaseOptions {
  samples: FuzzSamples
  credentials: Credentials
  /** The daemon's body limit; a few cases send one byte more. */
  maxBodyBytes: number
}

export function httpCases(entry: CatalogueEntry, opts: HttpCaseOptions): fc.Arbitrary<HttpCase> {
  const http = entry.http!
  const paramNames = [...http.path.matchAll(/:(\w+)|\{(\w+)\}/g)].map(m => (m[1] ?? m[2])!)
  const bodyMode = http.body ?? (http.method === 'GET' ? 'none' : 'fields')
  let right = rightCredentials[entry.auth]
  if (disruptive.has(entry.name)) right = right.map(kind => spare[kind] ?? kind)
  const credential = fc.oneof(
    { weight: 17, arbitrary: fc.constantFrom(...right).map(kind => ({ kind: kind as string, headers: (c: Credentials) => c[kind] })) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<CredentialKind>('none', 'admin', 'metrics', 'app', 'user', 'invoiceKey', 'adminKey')
        .map(kind => ({ kind: `wrong ${kind}`, headers: (c: Credentials) => c[kind] })),
    },
    { weight: 1, arbitrary: brokenCredentials.map(headers => ({ kind: 'broken', headers: () => headers })) },
  )
  const transportTwist = fc.oneof(
    { weight: 30, arbitrary: fc.constant<{ how: string } | undefined>(undefined) },
    { weight: 2, arbitrary: brokenBodies },
    { weight: 2, arbitrary: fc.tuple(fc.nat(paramNames.length), fc.constantFrom(...brokenSegments)).map(([at, segment]) => ({ how: `broken segment ${segment.slice(0, 12)}`, at, segment })) },
    { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PATCH', http.method === 'GET' ? 'POST' : 'GET').map(method => ({ how: `method ${method}`, method })) },
    { weight: 1, arbitrary: fc.constant({ how: 'query junk', query: '?a=%&b=%ZZ&api-key=%E0&&=&' + 'c=1&'.repeat(200) }) },
  )
  const oversize = fc.constant({ how: 'body over the limit', body: Buffer.alloc(opts.maxBodyBytes + 1, 0x20) })
  return fc
    .tuple(inputCases(entry, opts.samples), credential, fc.oneof({ weight: 999, arbitrary: transportTwist }, { weight: 1, arbitrary: oversize }))
    .map(([inputCase, cred, twist]) => {
      const input = inputCase.input
      const fields = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
      const params: Record<string, string> = {}
      for (const name of paramNames) params[name] = percentEncode(name in fields ? asText(fields[name]) : 'x')
      const t = (twist ?? {}) as { how?: string; at?: number; segment?: string; method?: string; query?: string; body?: Buffer; contentType?: string }
      if (t.segment !== undefined && paramNames.length > 0) params[paramNames[t.at! % paramNames.length]!] = t.segment
      const query = new URLSearchParams()
      for (const name of http.query ?? []) {
        if (!(name in fields)) continue
        const value = fields[name]
        for (const item of Array.isArray(value) ? value : [value]) query.append(name, asText(item))
      }
      let path = fill(http.path, params)
      if (t.query) path += t.query
      else if ([...query].length > 0) path += `?${query}`
      let body: Buffer | undefined
      if (t.body) body = t.body
      else if (bodyMode === 'fields') body = Buffer.from(encodeJson(input))
      else if (bodyMode === 'whole') body = Buffer.from(encodeJson(fields[http.bodyField ?? 'body'] ?? input))
      const method = t.method ?? http.method
      return {
        op: entry.name,
        how: `${inputCase.how}; ${cred.kind}${t.how ? `; ${t.how}` : ''}`,
        method,
        path,
        headers: {
          ...(body ? { 'content-type': t.contentType ?? 'application/json' } : {}),
          ...cred.headers(opts.credentials),
        },
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      }
    })
}
