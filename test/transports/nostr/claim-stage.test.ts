// The claim stage's way around the claim (inbound.ts): a request handled as unclaimed once its signature holds
// runs at once, without a claim, and stays in flight until done; one whose codec throws while reading is
// logged and let go, so `idle` still settles and a later copy of the same event is taken again.
import { test } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { Writable } from 'node:stream'
import type { Event } from 'nostr-tools/pure'
import { claimStage } from '../../../src/transports/nostr/inbound.js'
import type { ClaimRow, ProcessedRequests } from '../../../src/transports/nostr/processed-requests.js'

function harness() {
  const claimed: string[] = []
  const lines: string[] = []
  const processed = {
    claim: async (rows: readonly ClaimRow[]) => rows.map(row => (claimed.push(row.eventId), { state: 'claimed' as const })),
  } as unknown as ProcessedRequests
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, next) => (lines.push(String(chunk)), next()) }))
  const stage = claimStage({ processed, verify: () => true, clock: { now: () => Date.now() }, log })
  return { stage, claimed, lines }
}
const eventOf = (id: string) => ({ id, pubkey: 'p'.repeat(64), created_at: 1, kind: 21000, tags: [], content: '', sig: '' }) as Event

const settlesSoon = (promise: Promise<void>) =>
  Promise.race([promise.then(() => true), new Promise<boolean>(resolve => setTimeout(() => resolve(false), 1000))])

test('an unclaimed request runs at once, is in flight until done, and is never claimed', async () => {
  const { stage, claimed } = harness()
  let finish!: () => void
  let runs = 0
  const work = () => {
    runs++
    return new Promise<void>(resolve => (finish = resolve))
  }
  stage.take(eventOf('a'), 'app', () => ({ unclaimed: work }))
  stage.take(eventOf('a'), 'app', () => ({ unclaimed: work })) // a copy while it runs
  assert.is(runs, 1)
  assert.is(await settlesSoon(stage.idle()), false, 'in flight')
  finish()
  assert.is(await settlesSoon(stage.idle()), true)
  await stage.begun()
  assert.equal(claimed, [])
})

test('a codec that throws while reading: logged, nothing claimed or run, and a later copy is taken again', async () => {
  const { stage, claimed, lines } = harness()
  const ran: string[] = []
  stage.take(eventOf('b'), 'app', () => {
    throw new Error('codec fault')
  })
  assert.is(await settlesSoon(stage.idle()), true, 'not left in flight')
  assert.match(lines.join(''), /codec fault/)
  stage.take(eventOf('b'), 'app', () => ({ claimed: async () => void ran.push('claimed run') }))
  await stage.begun()
  assert.is(await settlesSoon(stage.idle()), true)
  assert.equal(claimed, ['b'])
  assert.equal(ran, ['claimed run'])
})

test.run()
