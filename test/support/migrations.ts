// Migration folders for tests of the migration runners and of single migrations: the repository's own migrations
// (the core's and the extensions', in one folder) up to a number (a database as an older build left it), or a few made-up files.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openStore, packageMigrationFolders, type Store } from '../../src/store/index.js'
import { tempDataDir } from './daemon.js'

/** The repository's migration folders: schema/sql and each extension's. */
export const repoMigrations: readonly string[] = packageMigrationFolders()

/** Copies the repository's migrations numbered up to `last` (both engines' files, from every folder) into `dir`. */
export function addMigrations(dir: string, last: number): void {
  for (const folder of repoMigrations) {
    for (const name of fs.readdirSync(folder)) {
      if (Number(name.slice(0, 3)) <= last) fs.copyFileSync(path.join(folder, name), path.join(dir, name))
    }
  }
}

/** A new folder with the repository's migrations numbered up to `last`. */
export function migrationsUpTo(last: number): string {
  const dir = writtenMigrations({})
  addMigrations(dir, last)
  return dir
}

/** A new folder holding these migration files (name → SQL). */
export function writtenMigrations(files: Record<string, string>): string {
  const dir = path.join(tempDataDir(), 'sql')
  fs.mkdirSync(dir)
  for (const [name, sql] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), sql)
  return dir
}

/**
 * A new data dir whose books stop just before migration `version`, holding one account `acct` and its wallet `u`:
 * rows to plant before the migration runs (openStore on the same dir with every migration applies it).
 */
export function booksBefore(version: number): { dataDir: string; old: Store } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `relaypay-${String(version).padStart(3, '0')}-`))
  const old = openStore({ dataDir, migrationsDir: migrationsUpTo(version - 1) })
  old.db.prepare("INSERT INTO accounts (id, created_at) VALUES ('acct', 1)").run()
  old.db.prepare("INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES ('u', 'acct', 'ak', 'ik', 1)").run()
  return { dataDir, old }
}
