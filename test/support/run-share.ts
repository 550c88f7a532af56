// A run with a PostgreSQL server (RELAYPAY_TEST_POSTGRES_URL, as `.ci/run` sets it) runs every file that starts a
// daemon twice, once on each engine (test/store-tests.ts). The long campaigns are planned per run, not per engine:
// about 100,000 fuzzed requests, at least 50 SIGKILLs under mixed load and 20 crashes of the payments load. So in such a run each half does half of them, and the
// same number reaches the daemon's code as in a run on SQLite alone, at half the CPU on PostgreSQL's side. The
// campaigns' own knobs (FUZZ_SCALE, CHAOS_CYCLES) are taken as given.

/** The share of a per-run campaign this run's half does: 1/2 when the run has a PostgreSQL half, else all of it. */
export function shareOfRun(): number {
  return process.env.RELAYPAY_TEST_POSTGRES_URL ? 0.5 : 1
}
