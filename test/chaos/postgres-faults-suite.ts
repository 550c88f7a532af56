// The chaos campaign's database faults: the chaos world's daemon on a PostgreSQL server this test file
// starts and owns (never the shared CI server: it is restarted and its sessions killed here), the same load mixes
// and the same oracle as the SIGKILL files (mixed-load.ts: nothing acknowledged lost, nothing applied twice, the
// audit clean, every balance what the acknowledged operations say), with a database fault in place of the kill.
//
// Every answer the load gets is kept: an operation cut short by the database must be answered, within a bound, in
// words that say what happened (its outcome is unknown), never with a stack, SQL or a bare "internal error".
import * as assert from 'uvu/assert'
import pg from 'pg'
import { storeUrlOf, type TestDaemon } from '../support/daemon.js'
import { postgresBinDir, startPostgresServer, type PostgresServer } from '../support/postgres.js'
import { storeFaultReason } from '../../src/bus/errors.js'
import type { ChaosWorld } from './chaos-world.js'

/** The sessions of the daemon's pool and of its active-daemon lock, as the daemon names them to the server. */
export const poolSession = 'relaypay'
export const lockSession = 'relaypay active lock'

/**
 * This file's own PostgreSQL 15, and every daemon the harness starts put on it (RELAYPAY_TEST_STORE=postgres).
 * Undefined, with the reason printed, only when the server binaries are not installed; with
 * RELAYPAY_TEST_REQUIRE_POSTGRES=1 that fails instead, as does any other reason it cannot start.
 */
export async function ownPostgres(): Promise<PostgresServer | undefined> {
  let server: PostgresServer
  try {
    // Commits durable as the daemon's docs require (synchronous_commit on): the server is crashed under load here.
    server = await startPostgresServer({ durableCommits: true })
  } catch (err) {
    const missing = /no PostgreSQL server binaries/.test((err as Error).message)
    if (!missing || process.env.RELAYPAY_TEST_REQUIRE_POSTGRES === '1') throw err
    console.log(`  skipped: no PostgreSQL 15 server binaries in ${postgresBinDir} (apt-get install postgresql-15)`)
    return undefined
  }
  process.env.RELAYPAY_TEST_STORE = 'postgres'
  process.env.RELAYPAY_TEST_POSTGRES_URL = server.adminUrl
  return server
}

/** Ends the sessions of `application` on the database of `url`, as an operator's pg_terminate_backend would; how many. */
export async function terminateSessions(adminUrl: string, url: string, application: string): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const { rows } = await admin.query(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity
        WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid()`,
      [new URL(url).pathname.slice(1), application],
    )
    return rows[0].ended as number
  } finally {
    await admin.end()
  }
}

/** The database the harness gave the world's daemon. */
export function urlOf(world: ChaosWorld): string {
  const url = storeUrlOf(world.dataDir)
  assert.ok(url, 'the daemon is not on PostgreSQL')
  return url
}

export interface Answer {
  what: string
  status: number
  text: string
  ms: number
}

/** How long an answer may take while the database misbehaves: the pool's statement timeout is 5 s. */
export const answerWithinMs = 20_000

/**
 * The world as the load sees it, with every HTTP answer its daemon gives kept in `answers`. (The world's own fields
 * are read and written through, so its expected balances stay one.)
 */
export function recordingWorld(world: ChaosWorld, answers: Answer[]): ChaosWorld {
  const recording = (daemon: TestDaemon): TestDaemon => ({
    ...daemon,
    async request(method, urlPath, opts) {
      const started = Date.now()
      const answer = await daemon.request(method, urlPath, opts)
      answers.push({ what: `${method} ${urlPath}`, status: answer.status, text: answer.text, ms: Date.now() - started })
      return answer
    },
  })
  return new Proxy(world, {
    get: (target, key) => (key === 'daemon' ? recording(target.daemon) : Reflect.get(target, key)),
  })
}

/** Errors the load meets without any fault (a payment racing its own resend, say): not the database's doing. */
const businessErrors = /already paid|insufficient|not enough|expired|outcome is unknown|payment not found/i

/**
 * Every answer was given in time and says what it means: no stack, no SQL, no bare internal error. Counts the
 * answers that named a database fault (HTTP and relay).
 */
export function assertClearAnswers(answers: Answer[], world: ChaosWorld, when: string): { faults: number } {
  let faults = 0
  const relayReplies = Object.values(world.relay).flatMap(wallet => wallet.client.received)
  const texts = [...answers.map(a => ({ what: a.what, text: a.text })), ...relayReplies.map(r => ({ what: 'relay reply', text: JSON.stringify(r) }))]
  for (const a of answers) {
    assert.ok(a.ms < answerWithinMs, `${when}: ${a.what} answered after ${a.ms} ms`)
    if (a.status >= 500 && !a.text.includes(storeFaultReason)) assert.unreachable(`${when}: ${a.what} answered ${a.status} ${a.text}`)
  }
  for (const { what, text } of texts) {
    assert.not.match(text, /internal error|\n\s+at |\bSELECT\b|\bINSERT\b|\bUPDATE\b|\bCOMMIT\b|pg_|terminating connection/, `${when}: ${what} answered ${text}`)
    if (text.includes(storeFaultReason)) faults++
    else if (/"status":"ERROR"/.test(text) && !businessErrors.test(text)) assert.unreachable(`${when}: ${what} answered ${text}`)
  }
  return { faults }
}
