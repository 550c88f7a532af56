// Which LND versions a test run covers: RELAYPAY_TEST_LND_VERSIONS (comma-separated), else every version this
// project tests on when RELAYPAY_TEST_REQUIRE_REGTEST=1 (CI, which builds them all first), else those whose
// binaries are in the cache (none on a machine that never built them: the real-LND tests are then skipped).
import fs from 'node:fs'
import { builtVersions, lndVersions, type LndVersion } from './binaries.js'

export function lndVersionsForRun(): LndVersion[] {
  const asked = process.env.RELAYPAY_TEST_LND_VERSIONS?.split(',').map(v => v.trim()).filter(Boolean)
  if (asked && asked.length > 0) return asked
  return process.env.RELAYPAY_TEST_REQUIRE_REGTEST === '1' ? [...lndVersions] : builtVersions()
}

/**
 * The line a regtest file carries in its opening comment to run on the first version of the run only (the newest,
 * unless RELAYPAY_TEST_LND_VERSIONS says otherwise). The LND contract, payments and the documented walkthrough run
 * on every version, since they are about LND's answers; the long campaigns (restarts, outages, crashes, the
 * standby) are about relaypay's recovery, and running them once keeps the suite inside its time.
 */
export const newestOnlyMarker = 'Runs on the newest LND version of the run only.'

/** The versions one compiled regtest file runs on. */
export function lndVersionsOfFile(file: string, versions: LndVersion[]): LndVersion[] {
  const opening = fs.readFileSync(file, 'utf8').slice(0, 4096)
  return opening.includes(newestOnlyMarker) ? versions.slice(0, 1) : versions
}
