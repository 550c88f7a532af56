// Database faults on PostgreSQL, part 2: the server restarted under load, cleanly (`pg_ctl restart -m fast`: every
// session ended) and as a crash (`-m immediate`: the server recovers from its WAL). The daemon's lock session ends with
// the server, so it may no longer be sure it is the only active daemon: it stops serving and exits 3 (docs/postgres.md,
// "Database faults"), and the test starts it again as its supervisor would. Afterwards, as after a kill: every
// acknowledged operation in the books once, nothing twice, the audit clean, every balance what the acknowledged
// operations say.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { audit } from '../support/money.js'
import type { PostgresServer } from '../support/postgres.js'
import { assertBalances, createChaosWorld, type ChaosWorld } from './chaos-world.js'
import { loadMixes } from './load-mixes.js'
import { runCycle, type CycleFault } from './mixed-load.js'
import { chaosSeed, seededRandom } from './seeded-random.js'
import { assertClearAnswers, ownPostgres, recordingWorld, type Answer } from './postgres-faults-suite.js'

const server: PostgresServer | undefined = await ownPostgres()
const seed = chaosSeed(102)
const s = suite(`database faults on PostgreSQL: the server restarted under load (seed ${seed})`)
let world: ChaosWorld | undefined

s.after(async () => {
  await world?.close().catch(() => {})
  server?.stop()
})

/** How long the server restart and the daemon's exit took, per cycle. */
const timings: string[] = []

function restartServer(mode: 'fast' | 'immediate'): CycleFault {
  return {
    name: `pg_ctl restart -m ${mode}`,
    async strike(w) {
      const started = Date.now()
      let serverBackMs = 0
      let exitMs = 0
      const [, code] = await Promise.all([
        server!.restart(mode).then(() => (serverBackMs = Date.now() - started)),
        w.daemon.exited.then(code => ((exitMs = Date.now() - started), code)),
      ])
      timings.push(`-m ${mode}: server back in ${serverBackMs} ms, daemon exited ${code} after ${exitMs} ms`)
      assert.is(code, 3, `the daemon's exit status after the server restart:\n${w.daemon.logs().slice(-3000)}`)
      assert.match(w.daemon.logs(), 'lost the active-daemon lock')
      return 'down'
    },
  }
}

s('pg_ctl restart -m fast and -m immediate under load: the daemon exits 3, comes back, nothing lost or twice', async () => {
  if (!server) return
  const random = seededRandom(seed)
  process.stdout.write(`    seed ${seed}\n`)
  world = await createChaosWorld()
  const answers: Answer[] = []
  const observed = recordingWorld(world, answers)
  const faults = [restartServer('fast'), restartServer('immediate'), restartServer('immediate')]
  let acked = 0
  let sent = 0
  const started = Date.now()
  for (const [i, fault] of faults.entries()) {
    const stats = await runCycle(observed, random, loadMixes.mixed, i + 1, fault)
    acked += stats.acked
    sent += stats.sent
    await assertBalances(observed, `cycle ${i + 1}, ${fault.name} (seed ${seed})`)
  }
  const { faults: faultAnswers } = assertClearAnswers(answers, observed, `seed ${seed}`)
  assert.ok(acked > 0, `only ${acked} of ${sent} operations were answered`)
  await observed.daemon.stop()
  const books = await audit(observed.dataDir)
  assert.ok(books.ok, JSON.stringify(books, null, 2))
  assert.is(books.walletsTotalMsat, observed.netInflowMsat, 'money was created or destroyed')
  observed.closeClients()
  process.stdout.write(
    `    ${faults.length} restarts in ${Math.round((Date.now() - started) / 1000)} s: ${sent} operations, ${acked} acknowledged, ` +
      `${faultAnswers} answers naming a database fault\n    ${timings.join('\n    ')}\n`,
  )
  world = undefined
})

s.run()
