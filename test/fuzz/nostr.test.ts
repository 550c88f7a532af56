// Fuzzes every operation served over the relay (kind 21000, like upstream's clients send it) with the same bad
// inputs as over HTTP, broken envelopes the protocol drops without a reply, and raw garbage events; then proves the
// daemon still answers, threw nothing unexpected, and its books balance.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { catalogue, type CatalogueEntry } from '../../schema/catalogue.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { assertAuditClean } from '../support/money.js'
import { checkPubReply, unexpectedInLog } from '../support/fuzz/answer-oracle.js'
import { answerDeadlineMs, campaignSeed, runCampaign, scaled, summarise, timeLimitMs } from '../support/fuzz/campaign.js'
import { garbageEvents, garbageFrames, nostrCases, requestEvent, type NostrCase } from '../support/fuzz/nostr-cases.js'
import { connectWire } from '../relay/wire-client.js'
import { startFuzzTarget, type FuzzTarget } from '../support/fuzz/fuzz-daemon.js'
import { defaultRelayLimits } from '../../src/relay/limits.js'

// Planned with the two HTTP files: 52,000 + 40,000 + 17,000 + 3,000. Relay requests cost far more (two signatures,
// a stored event each), so on a quiet 2-core machine this campaign reaches ~8,000 in its 100 s while both HTTP
// ones finish theirs in about a minute: ~103,000 requests per CI run. Each campaign prints what it reached.
const requests = 17_000
const garbage = 3_000
const stoppedBefore = /^(invalid request body|admin access|Metrics unavailable|user creation by client|unknown rpcName|rpcName |\w+ is (not )?served )/

const test = suite('fuzzing the operations served over the relay')
let target: FuzzTarget
let appPubkey: string
let relayUrl: string
let users: PubClient[] = []
let admin: PubClient
const entries = catalogue.filter(entry => entry.nostr) as CatalogueEntry[]

test.before(async () => {
  try {
    target = await startFuzzTarget()
    const profile = appProfile(target.daemon.dataDir)
    relayUrl = profile.relays[0]!
    appPubkey = profile.pubkey
    const connect = () => PubClient.connect({ relays: profile.relays, appPubkey, timeoutMs: 45_000, verifyMessages: false })
    users = await Promise.all([connect(), connect(), connect(), connect()])
    admin = await connect()
    const token = fs.readFileSync(path.join(target.daemon.dataDir, 'admin.enroll'), 'utf8').trim()
    const enrolled = await admin.call('EnrollAdminToken', { admin_token: token })
    assert.is(enrolled.status, 'OK', JSON.stringify(enrolled))
  } catch (err) {
    console.error(err) // uvu only says "Exiting early" for a failed hook
    throw err
  }
})
test.after(async () => {
  for (const client of [...users, admin]) client?.close()
  await target?.daemon.stop()
})

test(`every reply to ${scaled(requests)} fuzzed relay requests is a documented one, and dropped requests get none`, async () => {
  let counter = 0
  const unanswered: string[] = []
  const result = await runCampaign<NostrCase>({
    name: 'nostr requests',
    cases: fc.oneof(...entries.map(entry => nostrCases(entry, target.samples))),
    seed: campaignSeed(1403),
    requests: scaled(requests),
    batch: 256,
    concurrency: 32,
    timeLimitMs: timeLimitMs(100),
    label: c => ({ op: c.op, how: c.how, request: c.envelope('<sender>', '<id>').slice(0, 400) }),
    run: async c => {
      const requestId = `fuzz-${counter++}`
      const client = c.caller === 'admin' ? admin : users[counter % users.length]!
      const event = requestEvent(client, appPubkey, c.envelope(client.pubkey, requestId), c.scheme)
      const frame = JSON.stringify(['EVENT', event])
      if (Buffer.byteLength(frame) > defaultRelayLimits.maxFrameBytes) {
        // Beyond the relay's frame limit the connection itself is closed (1009): never on a shared one.
        const own = await connectWire(relayUrl)
        own.sendRaw(frame)
        const closed = await Promise.race([own.closed, new Promise<undefined>(resolve => setTimeout(() => resolve(undefined), 10_000).unref())])
        own.close()
        const problems = closed?.code === 1009 ? [] : [`a ${Buffer.byteLength(frame)}-byte frame: relay closed with ${closed?.code ?? 'nothing in 10 s'}, not 1009`]
        return { problems, reached: false }
      }
      const reply = c.answered ? client.waitFor(requestId, answerDeadlineMs) : undefined
      reply?.catch(() => {})
      try {
        await client.publish(event)
      } catch (err) {
        // The relay's documented size limits (any message; a request event) refuse the event before the daemon sees it.
        if (/^invalid: (message is \d+ bytes, more than|a request event is at most \d+ bytes)/.test((err as Error).message)) {
          return { problems: [], reached: false }
        }
        throw err
      }
      if (!reply) {
        if (c.dropped) unanswered.push(requestId)
        return { problems: [], reached: false }
      }
      const answer = await reply
      return { problems: checkPubReply(answer), reached: answer.status === 'OK' || !stoppedBefore.test(String(answer.reason)) }
    },
  })
  // Replies to dropped requests would have arrived by now: the answered ones sent after them did.
  await new Promise(resolve => setTimeout(resolve, 2_000))
  const dropped = new Set(unanswered)
  const replied = [...users, admin].flatMap(client => client.received.filter(reply => dropped.has(reply.requestId)))
  assert.ok(result.violations.length === 0, `${result.violations.length} replies broke the oracle:\n${summarise(result.violations)}`)
  assert.equal(replied.slice(0, 5), [], 'requests the protocol drops were answered')
  const missed = entries.filter(entry => !entry.stream && !result.reached.has(entry.name)).map(entry => entry.name)
  console.log(`[fuzz] nostr: ${entries.length - missed.length}/${entries.length} operations reached their handler; not reached: ${missed.join(', ') || 'none'}`)
  assert.ok(missed.length <= entries.length / 4, `too few operations reached their handler; missed: ${missed.join(', ')}`)
})

test(`${scaled(garbage)} garbage events and relay frames are dropped or refused, and the daemon keeps answering`, async () => {
  let wire = await connectWire(relayUrl)
  let wireOpen = true
  wire.closed.then(() => (wireOpen = false))
  const result = await runCampaign({
    name: 'nostr garbage',
    cases: fc.oneof({ weight: 9, arbitrary: garbageEvents(appPubkey) }, { weight: 1, arbitrary: garbageFrames }),
    seed: campaignSeed(1404),
    requests: scaled(garbage),
    batch: 256,
    concurrency: 16,
    timeLimitMs: timeLimitMs(20),
    label: c => ({ op: 'garbage', how: c.how, request: '' }),
    run: async c => {
      if ('frame' in c) {
        // Frames the relay cannot read may cost the connection: each gets one of its own.
        const own = await connectWire(relayUrl)
        own.sendRaw(c.frame)
        await own.next(() => true, 1_000).catch(() => {})
        own.close()
        return { problems: [], reached: false }
      }
      // The relay refuses some outright (bad id or signature, far future): that is an answer too.
      await wire.publish(c.event()).catch(async () => {
        if (wireOpen) return
        wireOpen = true
        wire = await connectWire(relayUrl)
        wire.closed.then(() => (wireOpen = false))
      })
      return { problems: [], reached: false }
    },
  })
  wire.close()
  assert.ok(result.sent > 0)
  const info = await users[1]!.call('GetUserInfo', {})
  assert.is(info.status, 'OK', JSON.stringify(info))
})

test('the daemon is still alive, threw nothing unexpected, and relaypay audit is clean', async () => {
  assert.is(target.daemon.process.exitCode, null, 'the daemon exited')
  const health = await target.daemon.request('GET', '/api/health')
  assert.is(health.status, 200, health.text)
  const unexpected = unexpectedInLog(target.daemon.logs())
  assert.equal(unexpected, [], `unexpected exceptions in the log:\n${unexpected.slice(0, 10).join('\n')}`)
  await assertAuditClean(target.daemon.dataDir)
})

test.run()
