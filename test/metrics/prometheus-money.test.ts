// What `GET /metrics` adds for an operator's dashboard: which build runs, the money that moved (each settlement
// counted once, however often it is reported), the relays and the size of the databases.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { repoRoot } from '../support/paths.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { call, newInvoice, ok, payFromOutside } from '../support/money.js'

const jwtSecret = 'prometheus-money-test-secret-0123456789'
const test = suite('prometheus: build, money, relays, store')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string }

test.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}\n[node]\nsimulate_payments = true\n` })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'prom-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'prom-payee' })
})
test.after(async () => {
  await daemon?.stop()
})

async function scrape(): Promise<string> {
  const res = await daemon.request('GET', '/metrics', { headers: { authorization: daemon.adminToken } })
  assert.is(res.status, 200, res.text)
  return res.text
}

/** A sample's value (0 when the series is absent). */
function sample(text: string, series: string): number {
  const escaped = series.replace(/[{}"=.]/g, c => `\\${c}`)
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

async function eventually(series: string, expected: number): Promise<string> {
  let text = ''
  for (let i = 0; i < 100; i++) {
    text = await scrape()
    if (sample(text, series) === expected) return text
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  assert.is(sample(text, series), expected, `${series} in:\n${text.split('\n').filter(l => l.startsWith('relaypay_')).join('\n')}`)
  return text
}

test('build info names the package version, the commit and Node', async () => {
  const text = await scrape()
  const version = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim()
  } catch {
    // not a checkout: the daemon says unknown too
  }
  assert.match(text, `relaypay_build_info{version="${version}",commit="${commit}",node_version="${process.versions.node}"} 1`)
})

test('money counters: received, internal with its fee, sent with its fee; a settlement reported twice counts once', async () => {
  const start = await scrape()
  for (const name of ['received', 'sent', 'fees_earned', 'internal_transfers']) {
    assert.is(sample(start, `relaypay_${name}_msat_total`), 0, name)
  }

  const invoice = await newInvoice(daemon, payer.userToken, 50_000)
  await payFromOutside(daemon, invoice)
  // The same settlement reported again changes nothing and is not counted again.
  await call(daemon, '/api/node/mock/invoice/paid', '', { invoice, amount: 0 })
  let text = await eventually('relaypay_received_msat_total', 50_000_000)
  assert.is(sample(text, 'relaypay_settled_payments_total{flow="received"}'), 1)

  const internal = await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: await newInvoice(daemon, payee.userToken, 1000), amount: 0 })
  assert.is(internal.service_fee, 10)
  text = await eventually('relaypay_internal_transfers_msat_total', 1_000_000)
  assert.is(sample(text, 'relaypay_fees_earned_msat_total'), 10_000)
  // The receiving side of an internal payment is not money received from outside.
  assert.is(sample(text, 'relaypay_received_msat_total'), 50_000_000)
  assert.is(sample(text, 'relaypay_settled_payments_total{flow="internal"}'), 1)

  const outside = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 20_000_000 }).paymentRequest
  const sent = await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: outside, amount: 0 })
  text = await eventually('relaypay_sent_msat_total', 20_000_000)
  assert.is(sample(text, 'relaypay_fees_earned_msat_total'), 10_000 + sent.service_fee * 1000)
  assert.is(sample(text, 'relaypay_settled_payments_total{flow="sent"}'), 1)
  assert.is(sample(text, 'relaypay_internal_transfers_msat_total'), 1_000_000)
})

test('relay gauges: the embedded relay has clients (the daemon itself), each relay the daemon uses is connected', async () => {
  // The relay thread reports its figures every second: the daemon's own links show within a few reports.
  let text = await scrape()
  for (let tries = 0; tries < 50 && !(sample(text, 'relaypay_embedded_relay_connections') >= 1); tries++) {
    await new Promise(resolve => setTimeout(resolve, 100))
    text = await scrape()
  }
  assert.ok(sample(text, 'relaypay_embedded_relay_connections') >= 1, text)
  const url = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  assert.is(sample(text, `relaypay_relay_connected{relay="${url}"}`), 1)
})

test('store bytes: both databases, at least their file size', async () => {
  const text = await scrape()
  for (const name of ['relaypay.sqlite', 'relay.sqlite']) {
    const bytes = sample(text, `relaypay_store_bytes{database="${name}"}`)
    assert.ok(bytes >= fs.statSync(path.join(daemon.dataDir, name)).size && bytes > 0, `${name}: ${bytes}`)
  }
})

test.run()
