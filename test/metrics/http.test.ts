// The Metrics caller's operations and `GET /metrics` through the real daemon over HTTP, the way an operator's
// dashboard or a Prometheus server meets them. Records are decoded by hand (./harness.ts), not by the writer.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { decodeSample, decodeUsage } from './harness.js'

const test = suite('metrics over HTTP')
let daemon: TestDaemon
let admin: Record<string, string>
let app: { id: string; token: string }

async function pub(path: string, headers: Record<string, string>, body: unknown = {}) {
  const res = await daemon.request('POST', path, { body, headers })
  assert.is(res.status, 200, `${path}: ${res.text}`)
  return res.json
}

async function ok(path: string, headers: Record<string, string>, body: unknown = {}) {
  const answer = await pub(path, headers, body)
  assert.is(answer.status, 'OK', `${path}: ${JSON.stringify(answer)}`)
  return answer
}

/** Polls until `check` holds (events reach the metrics room after the call that caused them answered). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 5000
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) assert.unreachable(`${what}: last seen ${JSON.stringify(value)}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

test.before(async () => {
  daemon = await startDaemon()
  admin = { authorization: daemon.adminToken }
  const added = await ok('/api/admin/app/add', admin, { name: 'metrics-app', allow_user_creation: false })
  app = { id: added.app.id, token: added.auth_token }
})
test.after(async () => {
  await daemon?.stop()
})

test('GET /metrics needs the metrics credential and answers the Prometheus text format', async () => {
  const missing = await daemon.request('GET', '/metrics')
  assert.is(missing.status, 401)
  assert.equal(missing.json, { detail: 'metrics header not found' })
  const wrong = await daemon.request('GET', '/metrics', { headers: { authorization: 'not-the-token-at-all' } })
  assert.is(wrong.status, 401)

  await daemon.request('GET', '/api/health')
  const scrape = await daemon.request('GET', '/metrics', { headers: admin })
  assert.is(scrape.status, 200)
  assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  assert.match(scrape.text, /^# HELP /m)
  assert.match(scrape.text, /relaypay_operations_total\{operation="Health",transport="http",outcome="ok"\} [1-9]/)
  assert.match(scrape.text, /relaypay_operations_total\{operation="AddApp",transport="http",outcome="ok"\} 1/)
  assert.match(scrape.text, /relaypay_operation_duration_seconds_count\{operation="AddApp",transport="http"\} 1/)
  assert.match(scrape.text, /relaypay_node_reachable 1/)
  assert.match(scrape.text, /relaypay_users_balance_msat \d+/)
  // The refused scrapes above were calls too.
  const refusedScrapes =
    /relaypay_operation_errors_total\{operation="PrometheusMetrics",transport="http",code="unauthenticated"\} 2/
  assert.match(scrape.text, refusedScrapes)
})

test('every call is a usage record filed under its app and operation', async () => {
  const appAuth = { authorization: app.token }
  await ok('/api/app/user/add', appAuth, { identifier: 'metrics-u1', fail_if_exists: true, balance: 0 })
  await ok('/api/app/user/add', appAuth, { identifier: 'metrics-u2', fail_if_exists: true, balance: 0 })
  const duplicate = await pub('/api/app/user/add', appAuth, { identifier: 'metrics-u1', fail_if_exists: true, balance: 0 })
  assert.is(duplicate.status, 'ERROR')
  await ok('/api/app/get', appAuth)

  const usage = await ok('/api/reports/usage', admin, {})
  const ofApp = usage.apps[app.id].app_metrics
  assert.equal(Object.keys(ofApp).sort(), ['AddAppUser', 'GetApp'])
  const records = ofApp.AddAppUser.base_64_tlvs.map(decodeUsage)
  assert.equal(records.map((r: { success: boolean }) => r.success), [true, true, false])
  for (const record of records) {
    assert.is(record.nostr, false)
    assert.is(record.batch, false)
    assert.ok(Math.abs(record.processedAt - Date.now() / 1000) < 60, 'processed_at is unix seconds')
  }
  assert.ok(records[0].handleUs > 0, 'the handler step was timed')
  assert.equal(ofApp.AddAppUser.available_chunks, [0])
  // The admin's own calls have no app.
  assert.ok(usage.apps._root.app_metrics.AddApp, JSON.stringify(Object.keys(usage.apps._root.app_metrics)))

  const page = { page: 0, metric_type: 'USAGE_METRIC' }
  const single = await ok('/api/reports/usage/single', admin, { app_id: '', metrics_name: `${app.id}/GetApp`, ...page })
  assert.is(single.base_64_tlvs.length, 1)
  const refused = await pub('/api/reports/usage/single', admin, { app_id: app.id, metrics_name: 'GetApp', ...page })
  assert.equal(refused, { status: 'ERROR', reason: 'SingleMetricReq::root..app_id: custom check failed' })
})

test('apps report their users, and what they received once an invoice is paid', async () => {
  const appAuth = { authorization: app.token }
  await ok('/api/app/user/add', appAuth, { identifier: 'metrics-receiver', fail_if_exists: false, balance: 0 })
  const before = (await ok('/api/reports/apps', admin, {})).apps
  assert.ok(before.some((entry: { app: { name: string } }) => entry.app.name === 'wallet'), 'the default app is reported')
  assert.is(before[before.length - 1].app.id, 'unlinked', 'wallets of no app come last')
  const mine = before.find((entry: { app: { id: string } }) => entry.app.id === app.id)
  assert.is(mine.app.name, 'metrics-app')
  assert.is(mine.users.total, 3)
  assert.is(mine.users.no_balance, 3)
  assert.is(mine.users.always_been_inactive, 3)
  assert.is(mine.received, 0)

  const { invoice } = await ok('/api/app/user/add/invoice', appAuth, {
    receiver_identifier: 'metrics-receiver',
    payer_identifier: 'metrics-payer',
    http_callback_url: '',
    invoice_req: { amountSats: 4321, memo: 'metrics' },
  })
  await ok('/api/node/mock/invoice/paid', {}, { invoice, amount: 0 })

  const report = async () => {
    const { apps } = await ok('/api/reports/apps', admin, { include_operations: true })
    return apps.find((entry: { app: { id: string } }) => entry.app.id === app.id)
  }
  const after = await eventually(report, entry => entry.received === 4321, 'the paid invoice in the app report')
  assert.is(after.invoices, 1)
  assert.is(after.available, 4321)
  assert.is(after.users.balance_avg, 4321)
  assert.is(after.users.balance_median, 4321)
  assert.is(after.users.total, 4, 'the payer was created on the way')
  assert.is(after.operations.length, 1)
  assert.is(after.operations[0].type, 'INCOMING_INVOICE')
  assert.is(after.operations[0].amount, 4321)

  const windowed = (await ok('/api/reports/apps', admin, { from_unix: Math.floor(Date.now() / 1000) + 3600 })).apps
  assert.is(windowed.find((entry: { app: { id: string } }) => entry.app.id === app.id).received, 0)

  const bundles = await eventually(
    () => ok('/api/reports/bundle', admin, {}),
    answer => answer.apps._root?.app_bundles.invoiceWasPaid_user_lnd !== undefined,
    'the paid invoice in the bundle series',
  )
  const samples = bundles.apps._root.app_bundles.invoiceWasPaid_user_lnd.base_64_data.map(decodeSample)
  assert.equal(samples.map(([, value]: [number, number]) => value), [4321])
})

test('node reports answer with the node’s channels and balance graphs; the upstream names are aliases', async () => {
  const report = await ok('/api/reports/node', admin, {})
  assert.is(report.nodes.length, 1)
  assert.ok(report.nodes[0].chain_balance.length >= 1)
  assert.equal(report.nodes[0].open_channels, [])
  const alias = await ok('/api/reports/lnd', admin, {})
  assert.is(alias.nodes.length, 1)
  assert.equal(await ok('/api/reports/lnd/forwarding', admin, {}), { status: 'OK', total_fees: 0, events: [] })
})

test('storage operations: ping, zip (a real archive), reset refused by default, no disruption', async () => {
  assert.equal(await ok('/api/metrics/ping', admin), { status: 'OK' })
  assert.equal(await ok('/api/metrics/providers/disruption', admin), { status: 'OK', disruptions: [] })
  const { path: zip } = await ok('/api/metrics/zip', admin)
  assert.ok(zip.startsWith(daemon.dataDir), zip)
  const bytes = fs.readFileSync(zip)
  assert.is(bytes.readUInt32LE(0), 0x04034b50, 'starts with a local file header')
  assert.is(bytes.readUInt32LE(bytes.length - 22), 0x06054b50, 'ends with the end record')
  const reset = await pub('/api/metrics/reset', admin)
  assert.is(reset.status, 'ERROR')
  assert.match(reset.reason, /allow_reset/)
})

test('error stats count failed calls and survive a restart', async () => {
  await pub('/api/admin/app/add', admin, { name: 42 })
  const before = await ok('/api/reports/errors', admin)
  assert.ok(before.past1m.errors >= 3, JSON.stringify(before))
  assert.ok(before.past1m.total > before.past1m.errors)
  assert.ok(Math.abs(before.past1m.from_unix - (Date.now() / 1000 - 60)) < 5)

  const dataDir = daemon.dataDir
  assert.is(await daemon.stop(), 0)
  daemon = await startDaemon({ dataDir })
  admin = { authorization: daemon.adminToken }
  const after = await ok('/api/reports/errors', admin)
  assert.is(after.past24h.errors, before.past24h.errors)
  // The GetErrorStats call itself counted before the restart; the one just made is counted too.
  assert.is(after.past24h.total, before.past24h.total + 1)
  const usage = await ok('/api/reports/usage', admin, {})
  assert.ok(usage.apps[app.id].app_metrics.AddAppUser, 'usage files are kept too')
})

test('the users balance gauge is the sum of committed balances, read on a connection of its own', async () => {
  const gauge = async () => Number(/relaypay_users_balance_msat (\d+)/.exec((await daemon.request('GET', '/metrics', { headers: admin })).text)![1])
  const appAuth = { authorization: app.token }
  await ok('/api/app/user/add', appAuth, { identifier: 'metrics-gauge', fail_if_exists: true, balance: 0 })
  const before = await gauge()
  await ok('/api/app/mock/user/blance/set', appAuth, { user_identifier: 'metrics-gauge', amount: 1234 })
  assert.is(await gauge(), before + 1_234_000)
})

test.run()

const reset = suite('metrics reset when allowed')
let second: TestDaemon

reset.before(async () => {
  second = await startDaemon({ config: '[metrics]\nallow_reset = true\nrecord_usage = true\n' })
})
reset.after(async () => {
  await second?.stop()
})

reset('ResetMetricsStorages wipes usage records and error counts', async () => {
  const headers = { authorization: second.adminToken }
  await second.request('POST', '/api/admin/app/add', { body: { name: 7 }, headers })
  const before = await second.request('POST', '/api/reports/usage', { body: {}, headers })
  assert.ok(Object.keys(before.json.apps).length > 0)
  const answer = await second.request('POST', '/api/metrics/reset', { body: {}, headers })
  assert.equal(answer.json, { status: 'OK' })
  const errors = await second.request('POST', '/api/reports/errors', { body: {}, headers })
  assert.is(errors.json.past24h.errors, 0)
  const usage = await second.request('POST', '/api/reports/usage', { body: {}, headers })
  // Only calls recorded after the wipe are left: the reset itself (recorded when it finished) and the stats read.
  assert.equal(Object.keys(usage.json.apps['_root'].app_metrics).sort(), ['GetErrorStats', 'ResetMetricsStorages'])
})

reset.run()
