// The paid-invoice callback as an integrator's server receives it, and the guard that keeps it out of private
// networks. No request in this file leaves loopback: forbidden targets are refused before any connection.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { addressAllowed, checkOutboundUrl, expandCallbackUrl, sendPaidCallback } from '../../src/callbacks/index.js'

const callbacks = suite('paid-invoice callbacks')
const seen: { url: string; authorization?: string }[] = []
let server: http.Server
let base = ''

callbacks.before(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization })
    const hops = /\/hop\/(\d+)/.exec(req.url!)
    if (hops && Number(hops[1]) > 0) res.writeHead(302, { location: `/hop/${Number(hops[1]) - 1}` }).end()
    else if (req.url!.startsWith('/to-metadata')) res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end()
    else res.writeHead(200).end('ok')
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
callbacks.after(() => new Promise<void>(resolve => server.close(() => resolve())))
callbacks.before.each(() => void (seen.length = 0))

const allow = { allowLoopback: true }

callbacks('expands the URI template with amount, invoice and payer data, and appends ok=true', () => {
  assert.is(
    expandCallbackUrl({ urlTemplate: 'https://shop.example/paid{?amount,invoice,email}', amountSats: 2100, invoice: 'lnbc1x', payerData: { email: 'a@b.c' } }),
    'https://shop.example/paid?amount=2100&invoice=lnbc1x&email=a%40b.c&ok=true',
  )
  assert.is(expandCallbackUrl({ urlTemplate: 'https://shop.example/paid', amountSats: 1, invoice: 'x' }), 'https://shop.example/paid?ok=true')
})

callbacks('sends a GET with the bearer token', async () => {
  const outcome = await sendPaidCallback({ urlTemplate: `${base}/cb/{amount}`, amountSats: 5, invoice: 'lnbc', bearerToken: 'tok' }, allow)
  assert.is(outcome.status, 200)
  assert.equal(seen, [{ url: '/cb/5?ok=true', authorization: 'Bearer tok' }])
})

callbacks('follows at most 3 redirects', async () => {
  assert.is((await sendPaidCallback({ urlTemplate: `${base}/hop/3`, amountSats: 1, invoice: 'x' }, allow)).status, 200)
  const tooMany = await sendPaidCallback({ urlTemplate: `${base}/hop/4`, amountSats: 1, invoice: 'x' }, allow)
  assert.is(tooMany.error, 'more than 3 redirects')
})

callbacks('a redirect into a private network is refused', async () => {
  const outcome = await sendPaidCallback({ urlTemplate: `${base}/to-metadata`, amountSats: 1, invoice: 'x' }, allow)
  assert.is(outcome.error, 'callback URL points into a private network')
})

callbacks('loopback is refused unless the operator allows it (tests do)', async () => {
  const refused = await sendPaidCallback({ urlTemplate: `${base}/cb`, amountSats: 1, invoice: 'x' }, { allowLoopback: false })
  assert.ok(refused.error)
  assert.is(seen.length, 0)
  const byName = await sendPaidCallback({ urlTemplate: base.replace('127.0.0.1', 'localhost') + '/cb', amountSats: 1, invoice: 'x' }, { allowLoopback: false })
  assert.match(byName.error ?? '', /forbidden addresses/)
  assert.is(seen.length, 0)
})

callbacks('only http(s) URLs without credentials', () => {
  for (const [url, reason] of [
    ['ftp://example.com/x', /http or https/],
    ['https://user:pw@example.com/x', /credentials/],
    ['not a url', /not a valid URL/],
    ['http://10.1.2.3/x', /private network/],
    ['http://[fd00::1]/x', /private network/],
  ] as const) {
    assert.throws(() => checkOutboundUrl(url, { allowLoopback: false }), reason, url)
  }
})

callbacks('address classes', () => {
  for (const address of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fe80::1', 'fc00::2', '::ffff:10.0.0.1', '224.0.0.1']) {
    assert.not.ok(addressAllowed(address, { allowLoopback: true }), address)
  }
  assert.ok(addressAllowed('8.8.8.8', { allowLoopback: false }))
  assert.ok(addressAllowed('2606:4700::1111', { allowLoopback: false }))
  assert.not.ok(addressAllowed('127.0.0.1', { allowLoopback: false }))
  assert.ok(addressAllowed('::1', { allowLoopback: true }))
})

callbacks.run()
