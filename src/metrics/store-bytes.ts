// The size on disk of the data dir's databases, for the relaypay_store_bytes gauge: the file and its write-ahead
// log (which holds the newest commits until a checkpoint), read with stat when scraped.
import fs from 'node:fs'
import path from 'node:path'

/** The daemon's own database and the embedded relay's (which exists only when the relay runs here). */
const databases = ['relaypay.sqlite', 'relay.sqlite']

export function databaseBytes(dataDir: string): Record<string, number> {
  const sizes: Record<string, number> = {}
  for (const name of databases) {
    const main = sizeOf(path.join(dataDir, name))
    if (main === undefined) continue
    sizes[name] = main + (sizeOf(path.join(dataDir, `${name}-wal`)) ?? 0)
  }
  return sizes
}

function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size
  } catch {
    return undefined
  }
}
