// The metrics room fed the way the daemon feeds it (call outcomes, domain events), read back through its own
// operations; records are decoded by hand in ./harness.ts, not by the writer.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { decodeSample, decodeUsage, openMetricsHarness, outcome, startMs, type MetricsHarness } from './harness.js'
import { randomNodePubkey } from '../support/outside-invoice.js'
import type { DomainEvent } from '../../src/bus/events.js'

const appId = 'a'.repeat(64)
const userCaller = { kind: 'user' as const, userId: 'b'.repeat(64), appId, appUserId: 'alice' }
const startUnix = Math.floor(startMs / 1000)

let paymentHashes = 0
function invoicePaid(amountMsat: number, internal: boolean): DomainEvent {
  const paymentHash = `hash-${++paymentHashes}`
  return { type: 'invoice.paid', walletId: 'w', paymentHash, amountMsat, extra: null, paidAt: startMs, internal, zap: false, callbackUrl: '' }
}

function userOperation(operation: Record<string, unknown>): DomainEvent {
  return { type: 'user.operation', userId: 'u', latestBalanceSats: 0, operation }
}

async function rejects(work: Promise<unknown>, code: string, message?: RegExp) {
  try {
    await work
  } catch (err) {
    assert.is((err as { code?: string }).code, code, String(err))
    if (message) assert.match((err as Error).message, message)
    return
  }
  assert.unreachable(`expected ${code}`)
}

const usage = suite('usage records from call outcomes')
let h: MetricsHarness
usage.before.each(async () => {
  h = await openMetricsHarness()
})
usage.after.each(async () => h.close())

usage('each finished call becomes one record under its app and operation, with its timings and flags', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, transport: 'nostr', authUs: 11, validateUs: 22, handleUs: 33 }))
  await h.time.advance(2000)
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, transport: 'batch', ok: false }))
  h.outcomes.next(outcome('GetLndMetrics', { caller: { kind: 'metrics', operatorId: 'http_operator', appId: '' } }))
  h.outcomes.next(outcome('BanUser', { caller: null, ok: false, errorCode: 'unauthenticated' }))

  const answer = await h.call('GetUsageMetrics', {})
  assert.equal(Object.keys(answer.apps).sort(), ['_root', appId].sort())
  const info = answer.apps[appId].app_metrics.GetUserInfo
  assert.is(info.current_chunk, 0)
  assert.equal(info.available_chunks, [0])
  const [first, second] = info.base_64_tlvs.map(decodeUsage)
  assert.equal(first, {
    processedAt: startUnix, parseUs: 0, authUs: 11, validateUs: 22, handleUs: 33,
    batchSize: 0, batch: false, nostr: true, success: true,
  })
  assert.is(second.processedAt, startUnix + 2)
  assert.is(second.batch, true)
  assert.is(second.nostr, false)
  assert.is(second.success, false)
  // Admin and metrics callers have no app; an alias is filed under the name it was called by, as upstream does.
  assert.equal(Object.keys(answer.apps._root.app_metrics).sort(), ['BanUser', 'GetLndMetrics'])
  assert.is(decodeUsage(answer.apps._root.app_metrics.BanUser.base_64_tlvs[0]).success, false)
})

usage('names outside the catalogue are not filed: a caller cannot create directories', async () => {
  h.outcomes.next(outcome('../../etc', { caller: null, ok: false, errorCode: 'not_found' }))
  h.outcomes.next(outcome('NoSuchOperation', { caller: null, ok: false, errorCode: 'not_found' }))
  assert.equal((await h.call('GetUsageMetrics', {})).apps, {})
  assert.is((await h.call('GetErrorStats')).past1m.errors, 2, 'they still count as failed calls')
})

usage('`limit` keeps the newest records of the newest chunk', async () => {
  for (let i = 0; i < 40; i++) {
    h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, handleUs: i }))
  }
  const tail = (await h.call('GetUsageMetrics', { limit: 5 })).apps[appId].app_metrics.GetUserInfo.base_64_tlvs
  assert.equal(tail.map((r: string) => decodeUsage(r).handleUs), [35, 36, 37, 38, 39])
  const fallback = (await h.call('GetUsageMetrics', {})).apps[appId].app_metrics.GetUserInfo.base_64_tlvs
  assert.is(fallback.length, 30, 'upstream answers 30 without a limit')
})

usage('one page of a series: app_id must be empty, the name says `<app>/<operation>` or a _root operation', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller }))
  h.outcomes.next(outcome('BanUser'))
  const single = (input: object) =>
    h.call('GetSingleUsageMetrics', { app_id: '', page: 0, metric_type: 'USAGE_METRIC', ...input })
  const appIdCheck = /^SingleMetricReq::root\.\.app_id: custom check failed$/
  await rejects(single({ app_id: appId, metrics_name: 'GetUserInfo' }), 'invalid_input', appIdCheck)
  await rejects(single({ metrics_name: '' }), 'invalid_input', /metrics_name: custom check failed/)
  const page = await single({ metrics_name: `${appId}/GetUserInfo` })
  assert.is(page.base_64_tlvs.length, 1)
  assert.equal(page.available_chunks, [0])
  assert.is((await single({ metrics_name: 'BanUser' })).base_64_tlvs.length, 1)
  await rejects(single({ metrics_name: 'BanUser', page: 1 }), 'not_found')
  await rejects(single({ metrics_name: '../BanUser' }), 'not_found')
})

usage('with record_usage off no usage record is written, but failures still count', async () => {
  await h.restart({ settings: { record_usage: false } })
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, ok: false }))
  assert.equal((await h.call('GetUsageMetrics', {})).apps, {})
  assert.is((await h.call('GetErrorStats')).past1m.errors, 1)
})

usage('records and error counts written before a restart are there after it', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller }))
  h.outcomes.next(outcome('PayInvoice', { caller: userCaller, ok: false }))
  await h.restart()
  await h.time.advance(5000)
  const stats = await h.call('GetErrorStats')
  assert.equal(stats.past1m, { from_unix: startUnix + 5 - 60, total: 2, errors: 1 })
  const files = (await h.call('GetUsageMetrics', {})).apps[appId].app_metrics
  assert.equal(Object.keys(files).sort(), ['GetUserInfo', 'PayInvoice'])
})

const bundles = suite('bundle series from domain events')
bundles.before.each(async () => {
  h = await openMetricsHarness()
})
bundles.after.each(async () => h.close())

bundles('money events become samples of <action>_<from>_<used> series, in whole sats', async () => {
  h.events.next(invoicePaid(21_000_999, false))
  await h.time.advance(1000)
  h.events.next(invoicePaid(5_000, true))
  const payment = { walletId: 'w', paymentHash: 'p3', amountMsat: 7_000 }
  h.events.next({ type: 'payment.settled', ...payment, feeMsat: 1000, settledAt: startMs, internal: false })
  h.events.next({ type: 'payment.failed', ...payment, paymentHash: 'p4', amountMsat: 9_000, reason: 'no route', failedAt: startMs })
  h.events.next(userOperation({ type: 'OUTGOING_USER_TO_USER', amount: 12, internal: true }))
  h.events.next(userOperation({ type: 'INCOMING_USER_TO_USER', amount: 12, internal: true }))

  const series = (await h.call('GetBundleMetrics', {})).apps._root.app_bundles
  const samples = (key: string) => series[key]?.base_64_data.map(decodeSample)
  assert.equal(samples('invoiceWasPaid_user_lnd'), [[startUnix, 21_000]])
  assert.equal(samples('invoiceWasPaid_user_internal'), [[startUnix + 1, 5]])
  assert.equal(samples('paidAnInvoice_user_lnd'), [[startUnix + 1, 7]])
  assert.equal(samples('paidAnInvoice_user_lnd_failed'), [[startUnix + 1, 9]])
  assert.equal(samples('user2user_user_internal'), [[startUnix + 1, 12]], 'a transfer counts once')
  assert.equal(series.invoiceWasPaid_user_lnd.available_chunks, [0])

  const request = { metrics_name: 'paidAnInvoice_user_lnd', page: 0, metric_type: 'BUNDLE_METRIC' }
  const single = await h.call('GetSingleBundleMetrics', { app_id: '', ...request })
  assert.equal(single.base_64_data.map(decodeSample), [[startUnix + 1, 7]])
  await rejects(
    h.call('GetSingleBundleMetrics', { app_id: 'x', ...request }),
    'invalid_input',
    /app_id: custom check failed/,
  )
})

bundles('balances are sampled into series only when they change; the node graphs read them back', async () => {
  const peer = randomNodePubkey()
  await h.node.addPeer({ pubkey: peer, host: '127.0.0.1', port: 9735 })
  const chainBefore = (await h.node.getBalances()).chainBalanceSats
  await h.time.advance(10_000)
  await h.call('GetNodeMetrics', {})
  await h.node.openChannel({ peerPubkey: peer, localFundingSats: 100_000, pushSats: 10_000 })
  await h.time.advance(10_000)
  const report = (await h.call('GetNodeMetrics', {})).nodes[0]
  const series = (await h.call('GetBundleMetrics', {})).apps._root.app_bundles
  const memory = series.memory_rss_kb.base_64_data.map(decodeSample)
  assert.ok(memory.length >= 1 && memory[0][1] > 1000, 'memory is sampled in kB')
  assert.is(decodeSample(series.usersBalance.base_64_data[0])[1], 0)

  const chain = report.chain_balance
  assert.is(chain[0].y, chainBefore)
  const funded = chain[chain.length - 1].y < chainBefore - 100_000
  assert.ok(funded, `the channel was funded from the chain wallet: ${JSON.stringify(chain)}`)
  for (let i = 1; i < chain.length; i++) assert.is.not(chain[i].y, chain[i - 1].y, 'a point per change only')
  assert.equal(report.channel_balance.map((p: { y: number }) => p.y), [0, 90_000])
  assert.is(report.online_channels + report.offline_channels, 1)
  assert.is(report.open_channels[0].capacity, 100_000)
  assert.is(report.open_channels[0].local_balance, 90_000)

  const windowed = (await h.call('GetNodeMetrics', { from_unix: startUnix + 15 })).nodes[0]
  assert.equal(windowed.channel_balance.map((p: { x: number; y: number }) => p.y), [90_000])
})

const node = suite('node, providers and storage operations')
node.before.each(async () => {
  h = await openMetricsHarness()
})
node.after.each(async () => h.close())

node('forwards in a window, with their fees, from the node', async () => {
  const [a, b] = [randomNodePubkey(), randomNodePubkey()]
  await h.node.addPeer({ pubkey: a, host: '127.0.0.1', port: 1 })
  await h.node.addPeer({ pubkey: b, host: '127.0.0.1', port: 2 })
  await h.node.openChannel({ peerPubkey: a, localFundingSats: 100_000, pushSats: 50_000 })
  await h.node.openChannel({ peerPubkey: b, localFundingSats: 100_000 })
  const channels = await h.node.listChannels()
  const [inbound, outbound] = [channels.find(c => c.peerPubkey === a)!, channels.find(c => c.peerPubkey === b)!]
  const forward = (feeMsat: number) =>
    h.node.mock!.recordForward({
      incomingChannelId: inbound.channelId,
      outgoingChannelId: outbound.channelId,
      amountOutMsat: 1_000_000,
      feeMsat,
    })
  await forward(2_500)
  await h.time.advance(120_000)
  await forward(1_999)

  const all = await h.call('GetNodeForwardingMetrics', {})
  assert.is(all.events.length, 2)
  assert.equal(all.events[0], {
    chan_id_in: inbound.channelId, chan_id_out: outbound.channelId, amt_in: 1_002, amt_out: 1_000, fee: 2, at_unix: startUnix,
  })
  assert.is(all.total_fees, 4, 'the sum of the fees in msat, in whole sats')
  const late = await h.call('GetNodeForwardingMetrics', { from_unix: startUnix + 60 })
  assert.is(late.events.length, 1)
  assert.is(late.total_fees, 1)
  const early = await h.call('GetNodeForwardingMetrics', { to_unix: startUnix + 60 })
  assert.is(early.events.length, 1)
  const report = (await h.call('GetNodeMetrics', {})).nodes[0]
  assert.is(report.forwarding_events, 2)
  assert.is(report.forwarding_fees, 4)
})

node('an unreachable node is a disruption since the first failed check, and fails the ping', async () => {
  assert.equal(await h.call('GetProvidersDisruption'), { disruptions: [] })
  const pubkey = (await h.node.getInfo()).pubkey
  await h.node.close()
  await h.time.advance(3000)
  const down = await h.call('GetProvidersDisruption')
  assert.equal(down.disruptions, [{ provider_pubkey: pubkey, provider_type: 'lnd', since_unix: startUnix + 3 }])
  await h.time.advance(60_000)
  assert.is((await h.call('GetProvidersDisruption')).disruptions[0].since_unix, startUnix + 3, 'the outage keeps its start')
  await rejects(h.call('PingSubProcesses'), 'upstream_failed', /^node failed: /)
})

node('locked outgoing payments are a disruption of the node too', async () => {
  let reason: string | undefined
  await h.restart({ extra: { outgoingLockedReason: () => reason } })
  assert.equal((await h.call('GetProvidersDisruption')).disruptions, [])
  reason = 'the audit found a difference'
  await h.time.advance(1000)
  const locked = await h.call('GetProvidersDisruption')
  assert.is(locked.disruptions.length, 1)
  assert.is(locked.disruptions[0].provider_type, 'lnd')
  assert.is(locked.disruptions[0].since_unix, startUnix + 1)
})

node('every part answers the ping in time, or the call names the one that did not', async () => {
  await h.restart({ extra: { pingTimeoutMs: 100, pings: { relays: async () => true, scheduler: async () => true } } })
  assert.equal(await h.call('PingSubProcesses'), {})
  await h.restart({
    extra: {
      pingTimeoutMs: 100,
      pings: {
        relays: () => new Promise(() => {}),
        scheduler: async () => {
          throw new Error('stopped')
        },
      },
    },
  })
  await rejects(h.call('PingSubProcesses'), 'upstream_failed', /relays did not answer within 100 ms; scheduler failed: stopped/)
})

node('ZipMetricsStorages answers the path of a zip holding every metrics file', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller }))
  h.events.next(invoicePaid(1000, true))
  const { path: zipPath } = await h.call('ZipMetricsStorages')
  assert.ok(path.isAbsolute(zipPath))
  assert.ok(zipPath.startsWith(path.join(h.dataDir, 'metrics')))
  const names = zipNames(zipPath)
  assert.ok(names.includes(`usage/${appId}/GetUserInfo/0.mtlv`), names.join(', '))
  assert.ok(names.includes('bundle/_root/invoiceWasPaid_user_internal/0.mtlv'), names.join(', '))
  assert.ok(names.includes('cache/error-stats.json'), names.join(', '))
  await h.time.advance(1000)
  const second = (await h.call('ZipMetricsStorages')).path
  assert.not.ok(fs.existsSync(zipPath), 'the previous archive is replaced')
  assert.not.ok(zipNames(second).some(name => name.startsWith('archives/')), 'an archive does not hold archives')
})

node('concurrent ZipMetricsStorages calls all answer an archive that exists', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller }))
  // The clock stands still: every call is made in the same millisecond.
  const calls = [h.call('ZipMetricsStorages'), h.call('ZipMetricsStorages'), h.call('ZipMetricsStorages')]
  const paths = (await Promise.all(calls)).map(answer => answer.path as string)
  for (const answered of paths) {
    assert.ok(fs.existsSync(answered), `${answered} was answered but is gone`)
    assert.ok(zipNames(answered).includes(`usage/${appId}/GetUserInfo/0.mtlv`))
  }
  const archives = path.dirname(paths[0]!)
  assert.equal(fs.readdirSync(archives), [path.basename(paths[0]!)], 'one archive, no partial builds left')
  const later = (await h.call('ZipMetricsStorages')).path
  assert.is.not(later, paths[0], 'a call after the build answered gets a new archive, even in the same millisecond')
  assert.equal(fs.readdirSync(archives), [path.basename(later)])
})

node('ResetMetricsStorages refuses unless the configuration allows it, then wipes usage, bundles and errors', async () => {
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, ok: false }))
  await rejects(h.call('ResetMetricsStorages'), 'forbidden', /allow_reset/)
  assert.is((await h.call('GetErrorStats')).past1m.total, 1)
  await h.restart({ settings: { allow_reset: true } })
  // The sample a start takes reads the users' balance first (a query): let it finish, so the reset comes after it.
  await h.call('GetNodeMetrics', {})
  h.events.next(invoicePaid(1000, true))
  assert.equal(await h.call('ResetMetricsStorages'), {})
  assert.equal((await h.call('GetUsageMetrics', {})).apps, {})
  assert.equal((await h.call('GetBundleMetrics', {})).apps, {})
  assert.is((await h.call('GetErrorStats')).past24h.total, 0)
  await h.call('GetNodeMetrics', {})
  const after = (await h.call('GetBundleMetrics', {})).apps._root.app_bundles
  assert.ok(after.usersBalance, 'balances are sampled again after a reset')
})

node('the Prometheus text counts calls by operation and transport and reads the gauges when scraped', async () => {
  await h.restart({
    extra: { relays: () => [{ url: 'ws://127.0.0.1:7447', connected: true }], schedulerRuns: () => ({ payroll: 3 }) },
  })
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, transport: 'nostr' }))
  h.outcomes.next(outcome('GetUserInfo', { caller: userCaller, transport: 'nostr', ok: false, errorCode: 'not_found' }))
  h.outcomes.next(outcome('GetLndMetrics', { handleUs: 2_000_000 }))
  h.outcomes.next(outcome('Invented', { ok: false, errorCode: 'not_found' }))
  const text = await h.metrics.prometheus()
  assert.match(text, /relaypay_operations_total\{operation="GetUserInfo",transport="nostr",outcome="ok"\} 1/)
  assert.match(text, /relaypay_operations_total\{operation="GetUserInfo",transport="nostr",outcome="error"\} 1/)
  assert.match(text, /relaypay_operation_errors_total\{operation="GetUserInfo",transport="nostr",code="not_found"\} 1/)
  const aliasCounted = /relaypay_operations_total\{operation="GetNodeMetrics",transport="http",outcome="ok"\} 1/
  assert.match(text, aliasCounted, 'aliases count under the name')
  assert.match(text, /relaypay_operations_total\{operation="unknown",transport="http",outcome="error"\} 1/)
  assert.not.match(text, /Invented/)
  assert.match(text, /relaypay_operation_duration_seconds_bucket\{le="1",operation="GetNodeMetrics",transport="http"\} 0/)
  assert.match(text, /relaypay_operation_duration_seconds_bucket\{le="2.5",operation="GetNodeMetrics",transport="http"\} 1/)
  assert.match(text, /relaypay_users_balance_msat 0/)
  assert.match(text, /relaypay_node_reachable 1/)
  assert.match(text, /relaypay_relay_connected\{relay="ws:\/\/127.0.0.1:7447"\} 1/)
  assert.match(text, /relaypay_scheduler_runs_total\{job="payroll"\} 3/)
  const answer = await h.call('PrometheusMetrics')
  assert.match(answer.contentType, /^text\/plain/)
  assert.match(answer.body, /relaypay_operations_total/)
  await h.node.close()
  assert.match(await h.metrics.prometheus(), /relaypay_node_reachable 0/)
})

/** Names in a zip's central directory, read by hand. */
function zipNames(file: string): string[] {
  const zip = fs.readFileSync(file)
  const end = zip.length - 22
  assert.is(zip.readUInt32LE(end), 0x06054b50)
  const names: string[] = []
  let at = zip.readUInt32LE(end + 16)
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    const nameLength = zip.readUInt16LE(at + 28)
    names.push(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'))
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return names
}

usage.run()
bundles.run()
node.run()
