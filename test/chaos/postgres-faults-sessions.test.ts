// Database faults on PostgreSQL, part 1: sessions dropped under load, a connection lost in the middle of a
// transaction. The daemon's pool sessions are ended by the server (pg_terminate_backend) again and again while
// payments run: the daemon stays up and opens new ones, a request whose transaction died is answered that its
// outcome is unknown, and afterwards every acknowledged operation is in the books once, nothing twice, the audit
// clean. Its active-daemon lock session ended: it stops serving and exits 3 within 5 s, the test starts it again as
// a supervisor would, and the same holds.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { audit } from '../support/money.js'
import { until } from '../support/until.js'
import type { PostgresServer } from '../support/postgres.js'
import { assertBalances, createChaosWorld, steadily, type ChaosWorld } from './chaos-world.js'
import { loadMixes } from './load-mixes.js'
import { runCycle, type CycleFault } from './mixed-load.js'
import { chaosSeed, seededRandom } from './seeded-random.js'
import { assertClearAnswers, lockSession, ownPostgres, poolSession, recordingWorld, terminateSessions, urlOf, type Answer } from './postgres-faults-suite.js'

/** The lease's bound: a daemon that lost the lock stops within this (books.ts exitOnLeaseLost). */
const exitWithinMs = 5_000

const server: PostgresServer | undefined = await ownPostgres()
const seed = chaosSeed(101)
const s = suite(`database faults on PostgreSQL: sessions dropped under load (seed ${seed})`)
let world: ChaosWorld | undefined

s.after(async () => {
  await world?.close().catch(() => {})
  server?.stop()
})

/** Ends the pool's sessions every 100 ms for 1.2 s while the load runs: transactions die at every step. */
function dropPoolSessions(counts: { ended: number }): CycleFault {
  return {
    name: 'pool sessions dropped',
    async strike(w) {
      for (let i = 0; i < 12; i++) {
        counts.ended += await terminateSessions(server!.adminUrl, urlOf(w), poolSession)
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      const child = w.daemon.process
      assert.ok(child.exitCode === null && child.signalCode === null, `the daemon exited (${child.exitCode ?? child.signalCode}) when its pool sessions were dropped:\n${w.daemon.logs().slice(-3000)}`)
      return 'up'
    },
  }
}

/** Ends the lock's session: the daemon must stop serving and exit 3, within 5 s. */
function dropLockSession(exits: number[]): CycleFault {
  return {
    name: 'the lock session dropped',
    async strike(w) {
      const ended = Date.now()
      assert.is(await terminateSessions(server!.adminUrl, urlOf(w), lockSession), 1, 'the lock session')
      const code = await w.daemon.exited
      exits.push(Date.now() - ended)
      assert.is(code, 3, `the daemon's exit status after it lost the lock:\n${w.daemon.logs().slice(-3000)}`)
      assert.match(w.daemon.logs(), 'lost the active-daemon lock')
      return 'down'
    },
  }
}

s('pool sessions and the lock session ended under load: acknowledged all present, none twice, audit clean', async () => {
  if (!server) return
  const random = seededRandom(seed)
  process.stdout.write(`    seed ${seed}\n`)
  world = await createChaosWorld()
  const answers: Answer[] = []
  const observed = recordingWorld(world, answers)
  const counts = { ended: 0 }
  const exits: number[] = []
  const faults = [dropPoolSessions(counts), dropLockSession(exits), dropPoolSessions(counts)]
  let acked = 0
  let sent = 0
  const started = Date.now()
  for (const [i, fault] of faults.entries()) {
    const when = `cycle ${i + 1}, ${fault.name} (seed ${seed})`
    const stats = await runCycle(observed, random, loadMixes.payments, i + 1, fault)
    acked += stats.acked
    sent += stats.sent
    // Whatever the fault, the daemon serves again: its pool has new sessions, or it was started again. Asked of the
    // daemon itself, not through the recording: a 503 while the store is not writable yet is the probe doing its job,
    // not an answer to a client.
    await until(async () => (await steadily(world!.daemon).request('GET', '/readyz')).status === 200, `${when}: /readyz 200`, 20_000)
    await assertBalances(observed, when)
  }
  const { faults: faultAnswers } = assertClearAnswers(answers, observed, `seed ${seed}`)
  assert.ok(acked > 0, `only ${acked} of ${sent} operations were answered`)
  assert.ok(counts.ended >= 2, `only ${counts.ended} pool sessions were ended`)
  await observed.daemon.stop()
  const books = await audit(observed.dataDir)
  assert.ok(books.ok, JSON.stringify(books, null, 2))
  assert.is(books.walletsTotalMsat, observed.netInflowMsat, 'money was created or destroyed')
  observed.closeClients()
  process.stdout.write(
    `    ${faults.length} cycles in ${Math.round((Date.now() - started) / 1000)} s: ${sent} operations, ${acked} acknowledged, ` +
      `${counts.ended} pool sessions ended, ${faultAnswers} answers naming a database fault, lock lost → exit 3 in ${exits.join(', ')} ms\n`,
  )
  world = undefined
})

s.run()
