// The HTTP fuzz suite the test/fuzz/http-*.test.ts files run over their share of the catalogue: one daemon, a
// seeded campaign over every operation in the share, then proof the daemon is still whole — alive, healthy, no
// unexpected exception in its log, and `relaypay audit` clean.
import { suite } from '../suite.js'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { catalogue, type CatalogueEntry } from '../../../schema/catalogue.js'
import { assertAuditClean } from '../money.js'
import { checkHttpAnswer, unexpectedInLog } from './answer-oracle.js'
import { answerDeadlineMs, campaignSeed, runCampaign, scaled, summarise, timeLimitMs, type CampaignResult } from './campaign.js'
import { httpCases, type HttpCase } from './http-cases.js'
import { httpSender } from './http-sender.js'
import { maxBodyBytes, startFuzzTarget, type FuzzTarget } from './fuzz-daemon.js'

/** Refusals by authentication and validation: an answer like these did not reach the handler. */
const stoppedBefore = /^(invalid request body|malformed JSON body|request body too large|admin |metrics |empty (app|user) token|the provided token|invalid signature|jwt |Nostr only route|No Api Key|Wallet not found|Invalid adminkey|Missing operator|Only the operator|Not authenticated|Invalid credentials|[\w.]+: )/

/** Whether an answer came from the handler: a success, or an error that is not authentication's or validation's. */
function reachedHandler(answer: { status: number; text: string }): boolean {
  let body: { status?: unknown; reason?: unknown; detail?: unknown }
  try {
    body = JSON.parse(answer.text)
  } catch {
    return answer.status < 300 // CSV, HTML and text answers
  }
  if (answer.status < 300 && body?.status !== 'ERROR') return true
  return !stoppedBefore.test(String(body?.reason ?? body?.detail))
}

export interface HttpSuiteOptions {
  name: string
  /** Which operations this file covers. */
  share(entry: CatalogueEntry): boolean
  requests: number
  seed: number
  /** Seconds before the campaign stops early (the runner kills a file after 300 s). */
  timeLimitSeconds: number
}

export function httpFuzzSuite(opts: HttpSuiteOptions): void {
  const test = suite(opts.name)
  let target: FuzzTarget
  let result: CampaignResult
  const entries = catalogue.filter(entry => entry.http && opts.share(entry))

  test.before(async () => {
    try {
      target = await startFuzzTarget()
    } catch (err) {
      console.error(err) // uvu only says "Exiting early" for a failed hook
      throw err
    }
  })
  test.after(async () => {
    await target?.daemon.stop()
  })

  test(`every answer to ${scaled(opts.requests)} fuzzed requests is a documented one`, async () => {
    const sender = httpSender(target.daemon.url, { sockets: 24, deadlineMs: 45_000 })
    const byName = new Map<string, CatalogueEntry>(entries.map(entry => [entry.name, entry]))
    const cases = fc.oneof(...entries.map(entry => httpCases(entry, { samples: target.samples, credentials: target.credentials, maxBodyBytes })))
    result = await runCampaign<HttpCase>({
      name: opts.name,
      cases,
      seed: campaignSeed(opts.seed),
      requests: scaled(opts.requests),
      batch: 256,
      concurrency: 24,
      timeLimitMs: timeLimitMs(opts.timeLimitSeconds),
      label: c => ({ op: c.op, how: c.how, request: `${c.method} ${c.path} ${c.body?.subarray(0, 300).toString('utf8') ?? ''}` }),
      run: async c => {
        let answer
        try {
          answer = await sender.send(c, answerDeadlineMs)
        } catch (err) {
          // The daemon may reset a connection whose upload is over the limit once it has answered.
          if (c.how.includes('over the limit') && /ECONNRESET|EPIPE|socket hang up/.test((err as Error).message)) return { problems: [], reached: false }
          throw err
        }
        const entry = byName.get(c.op)!
        const problems = checkHttpAnswer(entry, c.method, answer)
        return { problems, reached: reachedHandler(answer) }
      },
    })
    sender.close()
    assert.ok(result.violations.length === 0, `${result.violations.length} answers broke the oracle:\n${summarise(result.violations)}`)
    assert.ok(result.sent >= Math.min(scaled(opts.requests), 1000), `only ${result.sent} requests were sent`)
  })

  test('the daemon is still alive, healthy, and threw nothing unexpected', async () => {
    assert.is(target.daemon.process.exitCode, null, 'the daemon exited')
    const health = await target.daemon.request('GET', '/api/health')
    assert.is(health.status, 200, health.text)
    const unexpected = unexpectedInLog(target.daemon.logs())
    assert.equal(unexpected, [], `unexpected exceptions in the log:\n${unexpected.slice(0, 10).join('\n')}`)
  })

  test('most operations were reached past validation at least once', () => {
    const missed = entries.filter(entry => !entry.stream && entry.auth !== 'guestPub' && !result.reached.has(entry.name)).map(e => e.name)
    console.log(`[fuzz] ${opts.name}: ${entries.length - missed.length}/${entries.length} operations reached their handler; not reached: ${missed.join(', ') || 'none'}`)
    assert.ok(missed.length <= entries.length / 4, `too few operations reached their handler; missed: ${missed.join(', ')}`)
  })

  test('relaypay audit is clean after the campaign', async () => {
    await assertAuditClean(target.daemon.dataDir)
  })

  test.run()
}
