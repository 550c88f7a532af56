// SSRF: every URL a caller hands the daemon and the daemon then connects to — the paid-invoice callback (saved
// with UpdateCallbackUrl or given to AddAppInvoice / AddAppUserInvoice: checked when given and again when called,
// followed through redirects) and the relays a zap request
// names for its receipt — goes through the one guard in src/callbacks/outbound-guard.ts. The LNURL pay and withdraw
// URLs are the daemon's own (it serves them; it fetches none), and the rate providers, model host and relays of
// the config are the operator's.
// No request in this file leaves loopback: private and metadata targets are only ever checked, never connected to
// (a refused loopback target proves the same code path, and the test servers here count every connection).
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import type dns from 'node:dns'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { checkOutboundUrl, guardedLookup, guardedWebSocket, relayUrl, sendPaidCallback } from '../../src/callbacks/index.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { call, ok, payFromOutside } from '../support/money.js'
import { decodeLnurl, getAdvertised, lnurlDaemonConfig } from '../lnurl/lnurl-client.js'

/** A loopback HTTP server that counts every TCP connection and answers by `route`. */
async function countingServer(route: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('ok')) {
  const hits: { url: string; authorization?: string }[] = []
  let connections = 0
  const server = http.createServer((req, res) => {
    hits.push({ url: req.url!, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) })
    route(req, res)
  })
  server.on('connection', () => connections++)
  server.on('upgrade', (_req, socket) => socket.destroy())
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    hits,
    connections: () => connections,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  }
}

const loopbackHosts = (port: number) => [
  `127.0.0.1:${port}`, `127.1:${port}`, `2130706433:${port}`, `0x7f.0.0.1:${port}`, `0177.0.0.1:${port}`, `[::1]:${port}`,
  `[::ffff:127.0.0.1]:${port}`, `[::127.0.0.1]:${port}`, `0.0.0.0:${port}`, `0:${port}`,
]
const privateHosts = [
  '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.0.1', '192.168.255.255', '169.254.169.254',
  '100.64.0.1', '0.0.0.0', '[fc00::1]', '[fd12:3456::1]', '[fe80::1]', '[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]',
  '[::ffff:0:10.0.0.1]', '[64:ff9b::10.0.0.1]', '[2002:a00:1::1]', '[fec0::1]', '[::]', '224.0.0.1',
]
const strict = { allowLoopback: false }
const loose = { allowLoopback: true }

const guard = suite('the guard, without connecting anywhere')

guard('loopback in every spelling is refused unless the operator allows loopback', () => {
  for (const host of loopbackHosts(80)) {
    for (const [scheme, kind] of [['http', undefined], ['https', undefined], ['ws', relayUrl], ['wss', relayUrl]] as const) {
      assert.throws(() => checkOutboundUrl(`${scheme}://${host}/x`, strict, kind), /private network/, `${scheme}://${host}`)
    }
  }
  assert.is(checkOutboundUrl('http://127.0.0.1:80/x', loose).hostname, '127.0.0.1')
  assert.is(checkOutboundUrl('ws://[::1]:80', loose, relayUrl).hostname, '[::1]')
})

guard('private, link-local, metadata and IPv4-carrying IPv6 addresses are refused even where loopback is allowed', () => {
  for (const host of privateHosts) {
    for (const opts of [strict, loose]) {
      assert.throws(() => checkOutboundUrl(`http://${host}/latest/meta-data`, opts), /private network/, host)
      assert.throws(() => checkOutboundUrl(`wss://${host}`, opts, relayUrl), /private network/, host)
    }
  }
})

guard('public addresses and names pass the static check', () => {
  for (const url of ['https://93.184.216.34/cb', 'http://[2606:4700::1111]/cb', 'https://shop.example/paid{?amount}']) {
    assert.ok(checkOutboundUrl(url.replace(/\{[^}]*\}/g, 'x'), strict))
  }
  assert.ok(checkOutboundUrl('wss://relay.example', strict, relayUrl))
})

guard('only the expected schemes', () => {
  for (const url of ['file:///etc/passwd', 'gopher://example.com:70/_x', 'ftp://example.com/x', 'dict://example.com:11211/', 'javascript:alert(1)', 'data:text/plain,x', 'ws://example.com/']) {
    assert.throws(() => checkOutboundUrl(url, loose), /must use http or https|not a valid URL/, url)
  }
  for (const url of ['http://relay.example', 'https://relay.example', 'file:///etc/passwd']) {
    assert.throws(() => checkOutboundUrl(url, loose, relayUrl), /must use ws or wss/, url)
  }
  assert.throws(() => checkOutboundUrl('not a url', loose), /not a valid URL/)
})

guard('userinfo tricks: credentials are refused, and the host is the part after the last @', () => {
  for (const url of ['http://user:pw@example.com/', 'http://example.com@127.0.0.1/', 'http://127.0.0.1@example.com/', 'http://a:b@10.0.0.1/', 'wss://u@relay.example']) {
    assert.throws(() => checkOutboundUrl(url, loose, url.startsWith('wss') ? relayUrl : undefined), /credentials/, url)
  }
  // A percent-encoded or fragment-hidden host is still the host the URL parser reads.
  assert.throws(() => checkOutboundUrl('http://%31%32%37.0.0.1/', strict), /private network/)
  assert.throws(() => checkOutboundUrl('http://127.0.0.1#@example.com/', strict), /private network/)
})

/** A resolver answering from a table, as a name under an attacker's control would resolve. */
const resolverOf = (table: Record<string, string[]>) =>
  ((hostname: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
    const addresses = table[hostname]
    if (!addresses) return callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), [])
    callback(null, addresses.map(address => ({ address, family: address.includes(':') ? 6 : 4 })))
  })

function lookupWith(lookup: ReturnType<typeof guardedLookup>, hostname: string): Promise<{ err: NodeJS.ErrnoException | null; address?: string }> {
  return new Promise(resolve => lookup(hostname, {}, (err, address) => resolve({ err, address: address as string })))
}

guard('a name that resolves to a private address is refused at connection time; public ones are kept', async () => {
  const resolve = resolverOf({
    'metadata.attacker.example': ['169.254.169.254'],
    'inside.attacker.example': ['10.1.2.3', 'fd00::7'],
    'loop.attacker.example': ['127.0.0.1'],
    'mixed.attacker.example': ['10.0.0.9', '93.184.216.34'],
    'mapped.attacker.example': ['::ffff:192.168.1.1'],
  })
  for (const name of ['metadata.attacker.example', 'inside.attacker.example', 'loop.attacker.example', 'mapped.attacker.example']) {
    const { err } = await lookupWith(guardedLookup(strict, resolve), name)
    assert.is(err?.code, 'EFORBIDDEN', name)
  }
  assert.is((await lookupWith(guardedLookup(loose, resolve), 'loop.attacker.example')).address, '127.0.0.1')
  assert.is((await lookupWith(guardedLookup(loose, resolve), 'inside.attacker.example')).err?.code, 'EFORBIDDEN')
  assert.is((await lookupWith(guardedLookup(strict, resolve), 'mixed.attacker.example')).address, '93.184.216.34')
  // And with the system resolver: localhost is loopback.
  assert.is((await lookupWith(guardedLookup(strict), 'localhost')).err?.code, 'EFORBIDDEN')
})

guard('a guarded WebSocket never connects to a refused relay', async () => {
  const server = await countingServer()
  try {
    const GuardedWebSocket = guardedWebSocket(strict)
    assert.throws(() => new GuardedWebSocket(`ws://127.0.0.1:${server.port}`), /private network/)
    assert.throws(() => new GuardedWebSocket(`ws://[::ffff:127.0.0.1]:${server.port}`), /private network/)
    const byName = new GuardedWebSocket(`ws://localhost:${server.port}`)
    const failure = await new Promise<Error>(resolve => byName.on('error', resolve))
    assert.match(failure.message, /forbidden addresses/)
    assert.is(server.connections(), 0)
    // The same class reaches loopback where the operator allows it, so the refusals above are the guard's.
    const allowed = new (guardedWebSocket(loose))(`ws://localhost:${server.port}`)
    await new Promise(resolve => allowed.on('error', resolve).on('close', resolve))
    assert.ok(server.connections() > 0)
  } finally {
    await server.close()
  }
})

guard('redirects: a hop into a refused address is never followed; the bearer token stays with its origin', async () => {
  const target = await countingServer()
  const start = await countingServer((req, res) => {
    const to: Record<string, string> = {
      '/to-any?ok=true': `http://0.0.0.0:${target.port}/leak`,
      '/to-mapped?ok=true': `http://[::ffff:0.0.0.0]:${target.port}/leak`,
      '/to-file?ok=true': 'file:///etc/passwd',
      '/to-gopher?ok=true': `gopher://127.0.0.1:${target.port}/_x`,
      '/to-other-origin?ok=true': `http://localhost:${target.port}/elsewhere`,
    }
    res.writeHead(302, { location: to[req.url!] ?? '/' }).end()
  })
  try {
    for (const [path, reason] of [['/to-any', /private network/], ['/to-mapped', /private network/], ['/to-file', /http or https/], ['/to-gopher', /http or https/]] as const) {
      const outcome = await sendPaidCallback({ urlTemplate: `http://127.0.0.1:${start.port}${path}`, amountSats: 1, invoice: 'x', bearerToken: 'tok-0123456789abcdef' }, loose)
      assert.match(outcome.error ?? '', reason, path)
    }
    assert.is(target.connections(), 0)
    const outcome = await sendPaidCallback({ urlTemplate: `http://127.0.0.1:${start.port}/to-other-origin`, amountSats: 1, invoice: 'x', bearerToken: 'tok-0123456789abcdef' }, loose)
    assert.is(outcome.status, 200)
    assert.equal(target.hits, [{ url: '/elsewhere' }], 'followed without the token')
    assert.is(start.hits.at(-1)!.authorization, 'Bearer tok-0123456789abcdef')
  } finally {
    await start.close()
    await target.close()
  }
})

const api = suite('through the public API of a daemon that does not allow loopback')
const jwtSecret = 'ssrf-test-secret-0123456789abcdef0123'
let daemon: TestDaemon
let owner: TestAppUser
let integrator: Awaited<ReturnType<typeof countingServer>>

api.before(async () => {
  integrator = await countingServer()
  // LNURL is served on the loopback test URL ([lnurl] allow_loopback); callbacks and zap relays are not.
  daemon = await startDaemon({ config: lnurlDaemonConfig(jwtSecret) })
  owner = await createAppWithUser(daemon, { jwtSecret, identifier: 'ssrf-owner' })
})
api.after(async () => {
  await daemon?.stop()
  await integrator?.close()
})

const bearer = () => `Bearer ${owner.userToken}`
const waitForLog = async (pattern: RegExp, count: number) => {
  for (let i = 0; i < 200 && (daemon.logs().match(new RegExp(pattern, 'g'))?.length ?? 0) < count; i++) await new Promise(r => setTimeout(r, 50))
  assert.ok((daemon.logs().match(new RegExp(pattern, 'g'))?.length ?? 0) >= count, `log has ${count} × ${pattern}`)
}

api('UpdateCallbackUrl refuses every loopback, private, scheme and credential trick and keeps the saved URL', async () => {
  const saved = await ok(daemon, '/api/user/cb/update', bearer(), { url: 'https://shop.example/paid{?amount}' })
  assert.is(saved.url, 'https://shop.example/paid{?amount}')
  const hostile = [
    ...loopbackHosts(integrator.port).map(host => `http://${host}/cb`),
    ...privateHosts.map(host => `http://${host}/cb{?amount}`),
    'file:///etc/passwd', 'gopher://example.com/_x', 'ftp://example.com/', 'http://user:pw@example.com/', 'http://shop.example@127.0.0.1/',
  ]
  for (const url of hostile) {
    const refused = await call(daemon, '/api/user/cb/update', bearer(), { url })
    assert.is(refused.status, 'ERROR', url)
    assert.match(refused.reason, /private network|http or https|credentials/, url)
  }
  assert.is((await ok(daemon, '/api/user/info', bearer())).callback_url, 'https://shop.example/paid{?amount}')
  await ok(daemon, '/api/user/cb/update', bearer(), { url: '' })
})

api('an AddAppUserInvoice callback to loopback in any literal spelling is refused when given; to a name resolving there, never called', async () => {
  for (const host of loopbackHosts(integrator.port)) {
    const refused = await call(daemon, '/api/app/user/add/invoice', owner.appToken, {
      receiver_identifier: 'ssrf-owner',
      payer_identifier: 'someone',
      http_callback_url: `http://${host}/paid{?amount}`,
      invoice_req: { amountSats: 10, memo: 'ssrf' },
      token: 'integrator-token-0123456789',
    })
    assert.equal(refused, { status: 'ERROR', reason: 'callback URL points into a private network' }, host)
  }
  // A name is only resolved when the callback is made; the address it resolves to is refused then.
  const made = await ok(daemon, '/api/app/user/add/invoice', owner.appToken, {
    receiver_identifier: 'ssrf-owner',
    payer_identifier: 'someone',
    http_callback_url: `http://localhost:${integrator.port}/paid{?amount}`,
    invoice_req: { amountSats: 10, memo: 'ssrf' },
    token: 'integrator-token-0123456789',
  })
  await payFromOutside(daemon, made.invoice)
  await waitForLog(/paid-invoice callback failed/, 1)
  assert.is(integrator.connections(), 0)
})

api('zap receipts go to the service relay but never to a refused relay named by the zap request', async () => {
  const link = await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: { authorization: owner.userToken } })
  const payRequest = await getAdvertised(daemon, decodeLnurl(link.json.lnurl))
  const serviceRelay: string = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  // Receipts go to at most 10 relays: the service relay, a name resolving to loopback, credentials and 7 literals.
  const hostile = [`ws://localhost:${integrator.port}`, `ws://u:p@127.0.0.1:${integrator.port}`, ...loopbackHosts(integrator.port).slice(0, 7).map(host => `ws://${host}`)]
  const sender = generateSecretKey()
  const zap = finalizeEvent(
    { kind: 9734, content: '', created_at: Math.floor(Date.now() / 1000), tags: [['p', getPublicKey(generateSecretKey())], ['relays', serviceRelay, ...hostile], ['amount', '21000']] },
    sender,
  )
  const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr: JSON.stringify(zap) })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  await payFromOutside(daemon, answer.pr)
  await waitForLog(/zap receipt queued/, 1)
  await new Promise(r => setTimeout(r, 500))
  assert.is(integrator.connections(), 0)
  await waitForLog(/not publishing to a relay the guard refuses/, 8)
})

api('the invoice still credits: a refused callback never touches the money', async () => {
  const before = (await ok(daemon, '/api/user/info', bearer())).balance
  const made = await ok(daemon, '/api/app/user/add/invoice', owner.appToken, {
    receiver_identifier: 'ssrf-owner', payer_identifier: 'x', http_callback_url: `http://localhost:${integrator.port}/`, invoice_req: { amountSats: 5, memo: 'm' },
  })
  await payFromOutside(daemon, made.invoice)
  assert.is((await ok(daemon, '/api/user/info', bearer())).balance, before + 5)
})

guard.run()
api.run()
