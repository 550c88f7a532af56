// The PostgreSQL a bench puts a daemon's books on ([store] url), and what that server's processes cost while it
// runs. The server is RELAYPAY_TEST_POSTGRES_URL's (a fresh database on it) or Debian's PostgreSQL 15 started for
// the bench (test/support/postgres.ts) with PostgreSQL's own durability (fsync and synchronous commit on), so that it
// stands beside SQLite at synchronous = full; BENCH_POSTGRES_DURABLE=0 starts it with the test suite's fsync off.
// Without a server the bench's rows say `skipped` and why.
import fs from 'node:fs'
import pg from 'pg'
import { createDatabase, dropDatabase, startPostgresServer, type PostgresServer } from '../test/support/postgres.js'

export interface BenchPostgres {
  url: string
  /** Where the server came from and how it commits (fsync, synchronous_commit, full_page_writes as it reports them). */
  server: { origin: string; settings: Record<string, string> }
  /**
   * CPU ms (user + system) of the server's processes so far: the postmaster's own and its reaped children's (a
   * backend that ended during a window is counted there) plus every live child's. Null off Linux or when the server
   * is not on this machine. A shared server counts everyone's work on it.
   */
  serverCpuMs(): number | null
  close(): Promise<void>
}

/** Runs `work` on a bench PostgreSQL; without one, `{ skipped: <reason> }`. */
export async function onBenchPostgres<T extends object>(work: (postgres: BenchPostgres) => Promise<T>): Promise<T | { skipped: string }> {
  let postgres: BenchPostgres
  try {
    postgres = await benchPostgres()
  } catch (err) {
    return { skipped: (err as Error).message.split('\n')[0]! }
  }
  try {
    return { server: postgres.server, ...(await work(postgres)) }
  } finally {
    await postgres.close()
  }
}

export async function benchPostgres(env: NodeJS.ProcessEnv = process.env): Promise<BenchPostgres> {
  const shared = env.RELAYPAY_TEST_POSTGRES_URL
  let server: PostgresServer | undefined
  if (!shared) server = await startPostgresServer({ durable: env.BENCH_POSTGRES_DURABLE !== '0' })
  const adminUrl = shared ?? server!.adminUrl
  let url: string
  try {
    url = await createDatabase(adminUrl)
  } catch (err) {
    server?.stop()
    throw new Error(`no database could be created on ${adminUrl}: ${(err as Error).message}`)
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let postmaster: number | undefined
  const settings: Record<string, string> = {}
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    postmaster = parentPid(rows[0]!.pid)
    for (const name of ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'server_version']) {
      settings[name] = (await client.query(`SHOW ${name}`)).rows[0]![name]
    }
  } finally {
    await client.end()
  }
  return {
    url,
    server: { origin: shared ? 'RELAYPAY_TEST_POSTGRES_URL' : 'started by the bench', settings },
    serverCpuMs: () => (postmaster === undefined ? null : treeCpuMs(postmaster)),
    async close() {
      if (server) return server.stop()
      await dropDatabase(adminUrl, url)
    },
  }
}

/** A CPU window (process-stats.ts) that also reports the server's CPU per operation when the books are on `postgres`. */
export function withServerCpu<T extends object>(window: { end(operations: number): T }, postgres: BenchPostgres | undefined) {
  const before = postgres?.serverCpuMs() ?? null
  return {
    end(operations: number): T & { serverCpuMsPerOp?: number | null } {
      const costs = window.end(operations)
      if (!postgres) return costs
      const after = postgres.serverCpuMs()
      const perOp = before === null || after === null ? null : Math.round(((after - before) / Math.max(1, operations)) * 1000) / 1000
      return { ...costs, serverCpuMsPerOp: perOp }
    },
  }
}

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0), or undefined when unreadable. */
function statFields(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  } catch {
    return undefined
  }
}

/** The parent of a process of this machine (a backend's is the postmaster). */
function parentPid(pid: number): number | undefined {
  const fields = statFields(pid)
  return fields ? Number(fields[1]) : undefined
}

/** CPU ms of `root` (utime, stime, cutime, cstime: fields 14–17, ticks of 10 ms) and of its live children. */
function treeCpuMs(root: number): number | null {
  const own = statFields(root)
  if (!own) return null
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const fields = statFields(Number(entry))
    if (fields && Number(fields[1]) === root) ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * 10
}
