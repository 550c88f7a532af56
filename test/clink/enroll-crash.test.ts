// CLINK enroll (kind 21004) across SIGKILLs: batches of enroll requests, each a fresh key's event with real proof of
// work, are in flight over the daemon's embedded relay when the daemon is killed, at a seeded random moment picked
// among the stages a request goes through (the relay took it, its account was opened, its answer went out). After
// the restart on the same books and relay port every event is published again, as a client that heard nothing would,
// and each must have opened exactly one account and be answered exactly once, with that account's pointers (or with
// an error only if it opened none); an answer heard before the kill must be the same one. At the end the books hold
// exactly one account, user and app user per key enrolled. The seed is printed first (CHAOS_SEED replays it).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { Relay } from 'nostr-tools/relay'
import * as nip44 from 'nostr-tools/nip44'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile } from '../support/pub-client.js'
import { withBooks } from '../support/books.js'
import { freePort } from '../support/ports.js'
import { until } from '../support/until.js'
import { shareOfRun } from '../support/run-share.js'
import { chaosCycles, chaosSeed, seededRandom, type SeededRandom } from '../chaos/seeded-random.js'
import { mine } from './clink-client.js'
;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { nofferEncode, ndebitEncode, nmanageEncode } = await import('@shocknet/clink-sdk')

const powBits = 4
/** Requests in flight at each kill. */
const batch = 24
/** Kills on this engine: eight a run, half on each engine in a run with a PostgreSQL half (run-share.ts). */
const cycles = chaosCycles(Math.max(3, Math.round(8 * shareOfRun())))
const seed = chaosSeed(21004)
// Proof of work kept low (it is real, just cheap); a wide clock window, so that a request published again after a
// slow restart is still in it; no budget of new accounts or of new keys at the relay in the way: what is under test
// is the crash.
const config = `[nostr]\nrelay_new_keys_per_minute_per_address = 100000\n[clink]\nenroll_pow_bits = ${powBits}\nenroll_max_delta_ms = 300000\nenroll_accounts_per_minute = 100000\n`

const test = suite(`CLINK enroll across SIGKILLs (seed ${seed})`)
let daemon: TestDaemon | undefined
const listeners: Listener[] = []

interface Enroller {
  pubkey: string
  conversationKey: Uint8Array
  request: Event
}

/** A fresh key and its enroll request to `appPubkey`, mined to the node's difficulty. */
function enroller(appPubkey: string): Enroller {
  const secretKey = generateSecretKey()
  const pubkey = getPublicKey(secretKey)
  const conversationKey = nip44.v2.utils.getConversationKey(secretKey, appPubkey)
  const unsigned = {
    kind: 21004,
    pubkey,
    created_at: Math.floor(Date.now() / 1000),
    tags: [['p', appPubkey], ['clink_version', '1']],
    content: nip44.v2.encrypt('{}', conversationKey),
  }
  const mined = mine(unsigned, powBits)
  return { pubkey, conversationKey, request: finalizeEvent({ kind: mined.kind, created_at: mined.created_at, tags: mined.tags, content: mined.content }, secretKey) }
}

/** One relay connection that hears the answers to a set of requests, each checked and decrypted. */
interface Listener {
  relay: Relay
  /** Answers (their payloads) by request id, in the order heard. */
  answers: Map<string, unknown[]>
  heard(): number
  /** Called on every answer heard. */
  onAnswer?: () => void
  publish(request: Event): Promise<string>
  close(): void
}

async function listen(url: string, appPubkey: string, enrollers: Enroller[]): Promise<Listener> {
  const relay = await Relay.connect(url)
  const byId = new Map(enrollers.map(e => [e.request.id, e]))
  const answers = new Map<string, unknown[]>()
  const seen = new Set<string>()
  const listener: Listener = {
    relay,
    answers,
    heard: () => [...answers.values()].reduce((sum, list) => sum + list.length, 0),
    publish: request => relay.publish(request),
    close: () => relay.close(),
  }
  // By `#p`, as a client listens for what is addressed to it: the relay then knows the answers were heard live and
  // keeps none of them past its own end (it keeps on disk what nobody it names heard, and hands it out after).
  relay.subscribe([{ kinds: [21004], '#p': enrollers.map(e => e.pubkey) }], {
    onevent: event => {
      const replyTo = event.tags.find(tag => tag[0] === 'e')?.[1]
      const from = replyTo === undefined ? undefined : byId.get(replyTo)
      if (!from || seen.has(event.id) || event.pubkey !== appPubkey || !verifyEvent(event)) return
      assert.ok(event.tags.some(tag => tag[0] === 'p' && tag[1] === from.pubkey), 'the answer names its requester')
      seen.add(event.id)
      const payload: unknown = JSON.parse(nip44.v2.decrypt(event.content, from.conversationKey))
      answers.set(replyTo!, [...(answers.get(replyTo!) ?? []), payload])
      listener.onAnswer?.()
    },
  })
  listeners.push(listener)
  return listener
}

const openedLine = 'CLINK enroll opened an account'
const opened = (running: TestDaemon) => running.logs().split(openedLine).length - 1

/**
 * Kills the daemon once `due` holds, checked on each line it logs and each answer heard: the moment is one of the
 * stages the batch goes through. Resolves once the process is gone; fails if the moment has not come in a minute
 * (every moment comes at the latest when the whole batch is answered).
 */
function killWhen(running: TestDaemon, listener: Listener, due: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let fired = false
    const limit = setTimeout(() => {
      fired = true
      running.process.stdout!.off('data', check)
      reject(new Error(`the batch was not answered within a minute: ${listener.heard()} of ${batch} answers`))
    }, 60_000)
    const check = () => {
      if (fired || !due()) return
      fired = true
      clearTimeout(limit)
      running.process.stdout!.off('data', check)
      listener.onAnswer = undefined
      running.kill().then(resolve, reject)
    }
    running.process.stdout!.on('data', check)
    listener.onAnswer = check
    check()
  })
}

/** A seeded moment in the batch's life; every moment is also due once the whole batch is answered. */
function pickMoment(random: SeededRandom, running: TestDaemon, listener: Listener, published: () => number): { what: string; due: () => boolean } {
  const base = opened(running)
  const stage = random.below(3)
  const n = random.between(1, batch - 1)
  const all = () => listener.heard() >= batch
  if (stage === 0) return { what: `after ${n} requests reached the relay`, due: () => published() >= n || all() }
  if (stage === 1) return { what: `after ${n} accounts were opened`, due: () => opened(running) - base >= n || all() }
  return { what: `after ${n} answers were heard`, due: () => listener.heard() >= n || all() }
}

test.after(async () => {
  for (const listener of listeners) listener.close()
  await daemon?.stop()
})

test(`${cycles} SIGKILLs with enroll requests in flight: one account and one answer per event, the account's`, async () => {
  const random = seededRandom(seed)
  process.stdout.write(`    seed ${seed}, ${cycles} cycles of ${batch} requests\n`)
  const port = await freePort()
  const start = (dataDir?: string) => startDaemon({ env: { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(port) }, ...(dataDir ? { dataDir } : { config }) })
  let running = await start()
  daemon = running
  const dataDir = running.dataDir
  const { pubkey: appPubkey, relays } = appProfile(dataDir)
  const url = relays[0]!
  const counts = () =>
    withBooks(dataDir, async books => {
      const count = async (table: string) => Number((await books.one<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n)
      return { accounts: await count('accounts'), users: await count('users'), appUsers: await count('app_users') }
    })
  const before = await counts()
  let enrolled = 0
  const stats = { answeredBeforeKill: 0, claimedUnanswered: 0, openedUnanswered: 0 }

  for (let cycle = 1; cycle <= cycles; cycle++) {
    const enrollers = Array.from({ length: batch }, () => enroller(appPubkey))
    const first = await listen(url, appPubkey, enrollers)
    let published = 0
    const moment = pickMoment(random, running, first, () => published)
    const killed = killWhen(running, first, moment.due)
    for (const { request } of enrollers) {
      // A publish the kill cuts off is rejected: the client heard nothing, as after any lost connection.
      first.publish(request).then(() => void published++, () => {}).finally(() => first.onAnswer?.())
    }
    await killed
    first.close()
    const ids = enrollers.map(e => e.request.id)
    const left = await withBooks(dataDir, async books => {
      const marks = ids.map(() => '?').join(', ')
      const claims = await books.many<{ event_id: string; reply: string | null }>(`SELECT event_id, reply FROM nostr_requests WHERE event_id IN (${marks})`, ids)
      const keys = enrollers.map(e => e.pubkey)
      const accounts = await books.many<{ nostr_public_key: string }>(`SELECT nostr_public_key FROM app_users WHERE nostr_public_key IN (${marks})`, keys)
      const unanswered = new Set(claims.filter(claim => claim.reply === null).map(claim => claim.event_id))
      const withAccount = new Set(accounts.map(row => row.nostr_public_key))
      return { unanswered: unanswered.size, openedUnanswered: enrollers.filter(e => unanswered.has(e.request.id) && withAccount.has(e.pubkey)).length }
    })
    stats.claimedUnanswered += left.unanswered
    stats.openedUnanswered += left.openedUnanswered
    stats.answeredBeforeKill += first.answers.size

    // The restart, on the same books and relay port; every event published again, then a later request whose answer
    // comes after anything the restart sent about the batch.
    running = await start(dataDir)
    daemon = running
    const late = enroller(appPubkey)
    const again = await listen(url, appPubkey, [...enrollers, late])
    await Promise.all(enrollers.map(({ request }) => again.publish(request)))
    await until(() => again.answers.size >= batch, `every event of cycle ${cycle} answered after the restart (${moment.what})`, 60_000)
    await again.publish(late.request)
    await until(() => again.answers.has(late.request.id), 'the later request answered')
    enrolled += batch + 1

    const accounts = await withBooks(dataDir, async books => {
      const keys = [...enrollers, late].map(e => e.pubkey)
      const rows = await books.many<{ nostr_public_key: string; identifier: string }>(
        `SELECT nostr_public_key, identifier FROM app_users WHERE nostr_public_key IN (${keys.map(() => '?').join(', ')})`,
        keys,
      )
      return rows
    })
    const where = `cycle ${cycle}, killed ${moment.what} (seed ${seed})`
    for (const { pubkey, request } of [...enrollers, late]) {
      const held = accounts.filter(row => row.nostr_public_key === pubkey)
      const heard = again.answers.get(request.id) ?? []
      const earlier = first.answers.get(request.id) ?? []
      assert.is(heard.length, 1, `${where}: one answer after the restart, not ${JSON.stringify(heard)}`)
      assert.ok(earlier.length <= 1, `${where}: one answer before the kill, not ${JSON.stringify(earlier)}`)
      const answer = heard[0] as { res?: string }
      if (earlier.length === 1) assert.equal(earlier[0], answer, `${where}: the answer heard before the kill, again`)
      if (answer.res === 'ok') {
        assert.is(held.length, 1, `${where}: an ok answer, and an account for it`)
        const pointer = held[0]!.identifier
        assert.equal(
          answer,
          {
            res: 'ok',
            noffer: nofferEncode({ pubkey: appPubkey, relay: url, offer: pointer, priceType: 2 }),
            ndebit: ndebitEncode({ pubkey: appPubkey, relay: url, pointer }),
            nmanage: nmanageEncode({ pubkey: appPubkey, relay: url, pointer }),
          },
          `${where}: the account's own pointers`,
        )
      } else {
        assert.is(held.length, 0, `${where}: an error answer (${JSON.stringify(answer)}) although an account was opened`)
      }
      assert.is(held.length, 1, `${where}: one account for the event, not ${held.length}; it was answered ${JSON.stringify(answer)}`)
    }
    again.close()
  }

  await running.stop()
  daemon = undefined
  const after = await counts()
  assert.equal(after, { accounts: before.accounts + enrolled, users: before.users + enrolled, appUsers: before.appUsers + enrolled }, 'one account, user and app user per key')
  process.stdout.write(
    `    ${cycles} kills: ${enrolled} keys enrolled; at the kills ${stats.answeredBeforeKill} events had been answered, ` +
      `${stats.claimedUnanswered} were taken but not answered, ${stats.openedUnanswered} of them with their account opened\n`,
  )
})

test.run()
