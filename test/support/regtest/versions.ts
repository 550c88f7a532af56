// Which LND versions a test run covers: RELAYPAY_TEST_LND_VERSIONS (comma-separated), else every version this
// project tests on when RELAYPAY_TEST_REQUIRE_REGTEST=1 (CI, which builds them all first), else those whose
// binaries are in the cache (none on a machine that never built them: the real-LND tests are then skipped).
import { builtVersions, lndVersions, type LndVersion } from './binaries.js'

export function lndVersionsForRun(): LndVersion[] {
  const asked = process.env.RELAYPAY_TEST_LND_VERSIONS?.split(',').map(v => v.trim()).filter(Boolean)
  if (asked && asked.length > 0) return asked
  return process.env.RELAYPAY_TEST_REQUIRE_REGTEST === '1' ? [...lndVersions] : builtVersions()
}
