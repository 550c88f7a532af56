// Paying out to a stranger's LNURL-pay server (ResolveLnurlPay, GetLnurlPayInvoice) against the real daemon and a
// small LNURL server of the test's on loopback: an invoice is handed over only when it is for the amount asked and
// for the pay request's metadata; a server's refusals and broken answers become errors a person can read; the amount
// must be inside the server's range; and without `[callbacks] allow_loopback` a loopback server is not called at all.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { decodeLnurl, encodeLnurl } from '../../src/lnurl/index.js'

const test = suite('paying out to an LNURL-pay server')
let daemon: TestDaemon
let server: http.Server
let base: string
let appToken: string
let payer: Record<string, string>
/** What the test's LNURL server answers, per case. */
let answer: { payRequest: Record<string, unknown>; callback: (amountMsat: number) => Record<string, unknown> }
const requestsSeen: string[] = []

const metadata = JSON.stringify([['text/plain', 'Coffee at the corner']])
const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
/** The test server's host and port: the domain of its Lightning address. */
const host = (): string => base.replace('http://', '')

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
/** An invoice from the daemon for `sats` to shop (no description hash). */
const invoiceFor = async (sats: number) =>
  (await ok('/api/app/user/add/invoice', { receiver_identifier: 'shop', payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: sats, memo: 'coffee' } }, { authorization: `Bearer ${appToken}` })).invoice as string
const resolve = (destination: string) => daemon.request('POST', '/api/user/lnurl/pay/resolve', { body: { destination }, headers: payer })
const invoice = (destination: string, amount_sats: number) =>
  daemon.request('POST', '/api/user/lnurl/pay/invoice', { body: { destination, amount_sats }, headers: payer })

test.before(async () => {
  server = http.createServer((req, res) => {
    requestsSeen.push(req.url ?? '')
    const url = new URL(req.url ?? '/', base)
    const body = url.pathname === '/callback' ? answer.callback(Number(url.searchParams.get('amount'))) : answer.payRequest
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // The daemon's own LNURL-pay links on its loopback address too (the description hash test pays one's invoice).
  daemon = await startDaemon({ config: '[callbacks]\nallow_loopback = true\n[lnurl]\nallow_loopback = true\n' })
  appToken = (await ok('/api/admin/app/add', { name: 'lnurl-out', allow_user_creation: false }, admin())).auth_token
  for (const identifier of ['buyer', 'shop']) await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, { authorization: `Bearer ${appToken}` })
  payer = { authorization: `Bearer ${(await ok('/api/operator/users/token', { identifier: 'buyer' }, admin())).token}` }
})
test.after(async () => {
  await daemon?.stop()
  await new Promise(done => server?.close(done))
})

const payRequest = (extra: Record<string, unknown> = {}) => ({
  tag: 'payRequest', callback: `${base}/callback`, minSendable: 10_000, maxSendable: 2_000_000, metadata, commentAllowed: 0, ...extra,
})

test('the pay request is told as the page shows it; an invoice for the amount asked is handed over', async () => {
  let paid: string | undefined
  answer = { payRequest: payRequest(), callback: () => ({ pr: paid, routes: [] }) }
  const offer = await resolve(`coffee@${host()}`)
  assert.equal(offer.json, { status: 'OK', domain: host(), description: 'Coffee at the corner', min_sats: 10, max_sats: 2000, comment_chars: 0 })
  assert.ok(requestsSeen.includes('/.well-known/lnurlp/coffee'), 'a Lightning address is read at its well-known path')
  paid = await invoiceFor(123)
  const got = await invoice(`coffee@${host()}`, 123)
  assert.equal(got.json, { status: 'OK', invoice: paid })
  assert.ok(requestsSeen.includes('/callback?amount=123000'), 'the callback is asked for msat')
})

test('no invoice is handed over for another amount, after a server refusal, without a pay request, or outside the range', async () => {
  const address = `coffee@${host()}`
  const other = await invoiceFor(999)
  answer = { payRequest: payRequest(), callback: () => ({ pr: other }) }
  assert.equal((await invoice(address, 123)).json, {
    status: 'ERROR', reason: `${host()} answered an invoice for another amount than asked; nothing was paid.`,
  })
  answer = { payRequest: payRequest(), callback: () => ({ status: 'ERROR', reason: 'out of coffee' }) }
  assert.equal((await invoice(address, 123)).json, { status: 'ERROR', reason: `${host()} refused: out of coffee` })
  answer = { payRequest: { tag: 'withdrawRequest' }, callback: () => ({}) }
  assert.match((await resolve(address)).json.reason, /does not offer a payment there/)
  answer = { payRequest: payRequest(), callback: () => ({}) }
  assert.is((await invoice(address, 5)).json.reason, `${host()} takes from 10 to 2000 sats.`)
  assert.is((await invoice(address, 0)).json.reason, 'amount_sats must be greater than 0')
})

test("an invoice for another pay request's metadata (LUD-06 description hash) is refused; for this one's, handed over", async () => {
  // The daemon's own LNURL-pay link for shop makes invoices carrying the hash of that link's metadata.
  const shop = { authorization: `Bearer ${(await ok('/api/operator/users/token', { identifier: 'shop' }, admin())).token}` }
  const link = new URL(decodeLnurl((await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: shop })).json.lnurl))
  const own = (await daemon.request('GET', `${link.pathname}${link.search}`)).json
  const callback = new URL(own.callback)
  callback.searchParams.set('amount', '123000')
  const hashed = (await daemon.request('GET', `${callback.pathname}${callback.search}`)).json.pr as string
  answer = { payRequest: payRequest(), callback: () => ({ pr: hashed }) }
  assert.equal((await invoice(`coffee@${host()}`, 123)).json, {
    status: 'ERROR', reason: `${host()} answered an invoice for something else than its pay request; nothing was paid.`,
  })
  answer = { payRequest: payRequest({ metadata: own.metadata }), callback: () => ({ pr: hashed }) }
  assert.equal((await invoice(`coffee@${host()}`, 123)).json, { status: 'OK', invoice: hashed })
})

test("the callback's LUD-09 success action is handed over with the invoice when valid, and left out when not", async () => {
  const paid = await invoiceFor(50)
  const address = `coffee@${host()}`
  const iv = Buffer.alloc(16, 7).toString('base64')
  const ciphertext = Buffer.alloc(32, 9).toString('base64')
  const valid = [
    { tag: 'message', message: 'Thank you! Your coffee is number 42.' },
    { tag: 'url', description: 'Your receipt', url: `${base}/receipt/42` },
    { tag: 'aes', description: 'Your voucher code', ciphertext, iv },
    { tag: 'message', message: 'x'.repeat(144) },
  ]
  for (const action of valid) {
    answer = { payRequest: payRequest(), callback: () => ({ pr: paid, successAction: action }) }
    assert.equal((await invoice(address, 50)).json, { status: 'OK', invoice: paid, success_action: action }, action.tag)
  }
  const invalid: unknown[] = [
    'a string', null, [], { tag: 'sound', message: 'beep' }, { tag: 'message' }, { tag: 'message', message: 'x'.repeat(145) },
    { tag: 'message', message: 42 }, { tag: 'url', description: 'no url' },
    { tag: 'url', description: 'script', url: 'javascript:alert(1)' },
    { tag: 'url', description: 'data', url: 'data:text/html,<b>hi</b>' },
    { tag: 'url', description: 'another host', url: 'https://elsewhere.example.com/receipt' },
    { tag: 'url', description: 'x'.repeat(145), url: `${base}/receipt` },
    { tag: 'url', description: 'not a URL', url: 'http://' },
    { tag: 'aes', description: 'short iv', ciphertext, iv: Buffer.alloc(8).toString('base64') },
    { tag: 'aes', description: 'not base64', ciphertext: '!!!!', iv },
    { tag: 'aes', description: 'not whole blocks', ciphertext: Buffer.alloc(20).toString('base64'), iv },
    { tag: 'aes', description: 'too long', ciphertext: Buffer.alloc(4096).toString('base64'), iv },
    { tag: 'aes', description: 'no ciphertext', iv },
  ]
  for (const action of invalid) {
    answer = { payRequest: payRequest(), callback: () => ({ pr: paid, successAction: action }) }
    assert.equal((await invoice(address, 50)).json, { status: 'OK', invoice: paid }, JSON.stringify(action))
  }
})

test('without [callbacks] allow_loopback a loopback LNURL server is never called', async () => {
  const strict = await startDaemon()
  try {
    const app = (await strict.request('POST', '/api/admin/app/add', { body: { name: 'strict', allow_user_creation: false }, headers: { authorization: `Bearer ${strict.adminToken}` } })).json
    await strict.request('POST', '/api/app/user/add', { body: { identifier: 'someone', fail_if_exists: true, balance: 0 }, headers: { authorization: `Bearer ${app.auth_token}` } })
    const token = (await strict.request('POST', '/api/operator/users/token', { body: { identifier: 'someone' }, headers: { authorization: `Bearer ${strict.adminToken}` } })).json.token
    const seen = requestsSeen.length
    const refused = await strict.request('POST', '/api/user/lnurl/pay/resolve', { body: { destination: `coffee@${host()}` }, headers: { authorization: `Bearer ${token}` } })
    assert.equal(refused.json, { status: 'ERROR', reason: 'LNURL points into a private network' })
    const lnurl = await strict.request('POST', '/api/user/lnurl/pay/resolve', { body: { destination: encodeLnurl(`${base}/.well-known/lnurlp/coffee`) }, headers: { authorization: `Bearer ${token}` } })
    assert.equal(lnurl.json, { status: 'ERROR', reason: 'LNURL points into a private network' })
    assert.is(requestsSeen.length, seen, 'the server heard nothing')
  } finally {
    await strict.stop()
  }
})

test('a server that drips its answer a byte at a time is given up on: the whole answer has a time limit, not only each pause', async () => {
  const dripping = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{')
    const drip = setInterval(() => res.write(' '), 1000) // far inside the 5 s idle timeout, forever
    res.on('close', () => clearInterval(drip))
  })
  await new Promise<void>(done => dripping.listen(0, '127.0.0.1', done))
  try {
    const at = `127.0.0.1:${(dripping.address() as AddressInfo).port}`
    assert.equal((await resolve(`coffee@${at}`)).json, { status: 'ERROR', reason: `${at} did not answer within 5 s.` })
  } finally {
    dripping.closeAllConnections()
    await new Promise(done => dripping.close(done))
  }
})

test.run()
