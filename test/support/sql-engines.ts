// Both database engines behind the engine-neutral SqlStore, for contract tests that run the same cases on each:
// SQLite always (a fresh data dir), PostgreSQL when a server is available (test/support/postgres.ts).
import fs from 'node:fs'
import { migratePostgres, openStore, postgresSqlStore, type SqlEngine, type SqlStore } from '../../src/store/index.js'
import { tempDataDir } from './daemon.js'
import { createDatabase, dropDatabase, postgresSkipReason, testPostgres, type TestPostgres } from './postgres.js'

export interface EngineUnderTest {
  engine: SqlEngine
  /** A store on a fresh database with every migration applied. */
  open(): Promise<{ store: SqlStore; close(): Promise<void> }>
}

export interface Engines {
  engines: EngineUnderTest[]
  /** Set when PostgreSQL is not among them, saying why. */
  postgresSkipped?: string
  /** The PostgreSQL server of this file, when there is one. */
  postgres?: TestPostgres
  close(): Promise<void>
}

export const sqliteEngine: EngineUnderTest = {
  engine: 'sqlite',
  async open() {
    const dataDir = tempDataDir()
    const opened = openStore({ dataDir })
    return {
      store: opened.sql,
      async close() {
        await opened.sql.close()
        opened.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  },
}

export async function openEngines(): Promise<Engines> {
  const postgres = await testPostgres()
  if (!postgres) return { engines: [sqliteEngine], postgresSkipped: postgresSkipReason, close: async () => {} }
  let opened = 0
  const extra: string[] = []
  const pgEngine: EngineUnderTest = {
    engine: 'postgres',
    async open() {
      // The first open uses the file's own database; later ones get fresh databases on the same server.
      const url = opened++ === 0 ? postgres.url : await createDatabase(postgres.adminUrl)
      if (url !== postgres.url) extra.push(url)
      const store = postgresSqlStore({ url })
      await migratePostgres(store)
      return { store, close: () => store.close() }
    },
  }
  return {
    engines: [sqliteEngine, pgEngine],
    postgres,
    async close() {
      for (const url of extra) await dropDatabase(postgres.adminUrl, url).catch(() => {})
      await postgres.close()
    },
  }
}

/** The line a file prints when its PostgreSQL half did not run. */
export function logPostgresSkipped(reason: string | undefined): void {
  if (reason !== undefined) console.log(`  skipped on PostgreSQL: no server (${reason})`)
}
