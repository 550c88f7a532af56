// A test file's SIGKILL cycles under one load mix, one file per mix: CI runs each file's share (together at least
// 50 kills), `npm run chaos` runs them with CHAOS_CYCLES for the long campaign. The seed is printed first, so a
// failure can be replayed with CHAOS_SEED. The cycles of a mix run in one world, one after another: a file's own
// start and final audit cost about 4 s of CPU, and when each mix was cut into parts of 4 kills (13 files, twice
// in a run with a PostgreSQL half) that was a fifth of the campaign's CPU.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { audit } from '../support/money.js'
import { assertBalances, createChaosWorld, type ChaosWorld } from './chaos-world.js'
import { runCycle } from './mixed-load.js'
import { loadMixes, type LoadMixName } from './load-mixes.js'
import { chaosCycles, chaosSeed, seededRandom } from './seeded-random.js'
import { shareOfRun } from '../support/run-share.js'

/**
 * In CI a file stops starting new cycles after this long, so that a machine loaded far beyond its cores (where a
 * daemon start takes a minute) ends with fewer kills, said in the output, rather than at the runner's 5-minute
 * limit. Never with CHAOS_CYCLES: a campaign runs every cycle it was asked for.
 */
const ciBudgetMs = 170_000

/**
 * `killsPerRun`: this mix's share of a CI run's kills (the five mixes' shares add up to at least 50); in a run with a
 * PostgreSQL half, half of them on each engine (run-share.ts).
 */
export function sigkillSuite(mixName: LoadMixName, killsPerRun: number, seedOffset: number): void {
  const mix = loadMixes[mixName]
  const fileStarted = Date.now()
  const seed = chaosSeed(seedOffset)
  const cycles = chaosCycles(Math.ceil(killsPerRun * shareOfRun()))
  const test = suite(`SIGKILL under the '${mixName}' load (seed ${seed})`)
  let world: ChaosWorld | undefined

  test.after(async () => {
    await world?.close()
  })

  test(`${cycles} SIGKILLs at random moments: audit clean, nothing acknowledged lost, nothing applied twice`, async () => {
    const random = seededRandom(seed)
    process.stdout.write(`    seed ${seed}, ${cycles} cycles\n`)
    world = await createChaosWorld()
    const started = Date.now()
    let sent = 0
    let acked = 0
    let periods = 0
    let done = 0
    // On a loaded machine every kill of a short run may land before anything was answered: up to four cycles more
    // then, until something is (the load must have run for the run to prove anything). A 'burst' file of two cycles
    // on PostgreSQL at load 16 had both kills land first.
    const extraCycles = 4
    for (let cycle = 1; cycle <= cycles || (acked === 0 && cycle <= cycles + extraCycles); cycle++) {
      // Not before something was answered: a run whose every kill landed first proves nothing, on a machine so loaded
      // that the budget ran out in the first cycles (a PostgreSQL 'burst' file at load 21: 0 of 104 answered in 4).
      if (cycle > 1 && cycle <= cycles && acked > 0 && process.env.CHAOS_CYCLES === undefined && Date.now() - fileStarted > ciBudgetMs) {
        process.stdout.write(`    stopped after ${done} of ${cycles} cycles: the machine is too loaded for the CI time budget\n`)
        break
      }
      const current = world
      // The extra cycles kill after the cycle's first answer: at a load where the first four had every kill land
      // before any answer (a PostgreSQL 'burst' file beside two soaks and the suite), four more alike did too.
      const late = { killAfterAnAnswer: cycle > cycles }
      const stats = await runCycle(current, random, mix, cycle, undefined, late).catch(err => Promise.reject(withDaemonState(err, current)))
      await assertBalances(current, `cycle ${cycle} (seed ${seed})`).catch(err => Promise.reject(withDaemonState(err, current)))
      sent += stats.sent
      acked += stats.acked
      periods = stats.paidPeriods
      done = cycle
      if (cycle % 50 === 0) process.stdout.write(`    ${cycle} cycles in ${Math.round((Date.now() - started) / 1000)} s\n`)
    }
    // The load did run: some of it was answered before the kills.
    assert.ok(acked > 0, `only ${acked} of ${sent} operations were answered before the kills`)
    await world.daemon.stop()
    // The whole: wallets together hold what came in from outside, less what left for other nodes.
    const books = await audit(world.dataDir)
    assert.ok(books.ok, JSON.stringify(books, null, 2))
    assert.is(books.walletsTotalMsat, world.netInflowMsat, 'money was created or destroyed')
    world.closeClients()
    process.stdout.write(
      `    ${done} kills in ${Math.round((Date.now() - started) / 1000)} s: ${sent} operations sent, ${acked} acknowledged before the kill, ${periods} payroll periods acknowledged\n`,
    )
    world = undefined
  })

  test.run()
}

/** A failure says whether the daemon was still running, and what it logged last at warn level and above. */
function withDaemonState(err: unknown, world: ChaosWorld): unknown {
  if (!(err instanceof Error)) return err
  const child = world.daemon.process
  const state = child.exitCode === null && child.signalCode === null ? 'running' : `exited (${child.exitCode ?? child.signalCode})`
  const lines = world.daemon.logs().split('\n')
  const warnings = lines.filter(line => /"level":(40|50|60)/.test(line)).slice(-15)
  err.message += `\n  the daemon: ${state}, data ${world.dataDir}\n  its warnings and errors:\n${warnings.join('\n')}\n  its last lines:\n${lines.slice(-8).join('\n')}`
  return err
}
