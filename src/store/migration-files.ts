// Where the numbered migrations are: the core's in schema/sql and each extension's in its own folder
// (src/extensions/<name>/migrations), merged into one sequence by number. The numbers are the schema versions
// stored in existing databases, so a file keeps its number wherever it lives, and two files of one number (in one
// folder or in two) are refused. Both engines' runners read the same list; a PostgreSQL twin (`NNN_name.pg.sql`)
// lies beside its file.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package root (this file runs from build/src/store/). */
const packageRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

/** The core's migrations. */
export const coreMigrationsDir = path.join(packageRoot, 'schema/sql')
/** The extensions' folders: each one's migrations, when it has tables, are in `<folder>/migrations`. */
const extensionsDir = path.join(packageRoot, 'src/extensions')

/** A NNN_name.sql file; a twin's second dot keeps it out. */
const migrationName = /^(\d{3,})_[a-z0-9_]+\.sql$/

/** One folder, or several whose files form one sequence. */
export type MigrationFolders = string | readonly string[]

export interface MigrationFileRef {
  version: number
  name: string
  /** The folder it lies in (its twin, if any, lies there too). */
  dir: string
}

/** The package's migration folders: schema/sql, then each extension's that has one, by folder name. */
export function packageMigrationFolders(): string[] {
  const extensions = fs.existsSync(extensionsDir)
    ? fs
        .readdirSync(extensionsDir, { withFileTypes: true })
        .filter(entry => entry.isDirectory())
        .map(entry => path.join(extensionsDir, entry.name, 'migrations'))
        .filter(dir => fs.existsSync(dir))
        .sort()
    : []
  return [coreMigrationsDir, ...extensions]
}

/**
 * Every migration of `folders` in numeric order. Throws when two share a number: the schema version would name
 * two different changes.
 */
export function migrationFiles(folders: MigrationFolders): MigrationFileRef[] {
  const dirs = typeof folders === 'string' ? [folders] : folders
  const byVersion = new Map<number, MigrationFileRef>()
  for (const dir of dirs) {
    for (const name of fs.readdirSync(dir).filter(name => migrationName.test(name)).sort()) {
      const version = Number(name.match(migrationName)![1])
      const other = byVersion.get(version)
      if (other) {
        const where = other.dir === dir ? dir : `${other.dir} and ${dir}`
        throw new Error(`two migrations share number ${version} in ${where}: ${other.name}, ${name}`)
      }
      byVersion.set(version, { version, name, dir })
    }
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version)
}

/** The newest migration version these folders hold; 0 when none. */
export function newestMigration(folders: MigrationFolders = packageMigrationFolders()): number {
  return Math.max(0, ...migrationFiles(folders).map(file => file.version))
}
