// ZipMetricsStorages: one zip of every metrics file (usage, bundles, error counters) under
// `<metrics dir>/archives/`, replacing the previous archive so they do not pile up.
import fs from 'node:fs'
import path from 'node:path'
import { writeZipArchive, type ZipSource } from './zip-archive.js'

export const archivesDirName = 'archives'

/** Writes the archive and returns its absolute path. `stamp` names it (unix ms). */
export async function archiveMetrics(metricsDir: string, stamp: number): Promise<string> {
  const archives = path.join(metricsDir, archivesDirName)
  fs.mkdirSync(archives, { recursive: true })
  const out = path.resolve(archives, `metrics-${stamp}.zip`)
  const partial = `${out}.partial`
  const sources = filesUnder(metricsDir, '').filter(source => !source.name.startsWith(`${archivesDirName}/`))
  try {
    await writeZipArchive(partial, sources)
    fs.renameSync(partial, out)
  } catch (err) {
    fs.rmSync(partial, { force: true })
    throw err
  }
  for (const old of fs.readdirSync(archives)) {
    if (old.endsWith('.zip') && path.join(archives, old) !== out) fs.rmSync(path.join(archives, old), { force: true })
  }
  return out
}

/** Regular files below `dir`, named by their path relative to the metrics dir, in a stable order. */
function filesUnder(root: string, relative: string): ZipSource[] {
  const dir = path.join(root, relative)
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap(entry => {
      const name = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isDirectory()) return filesUnder(root, name)
      return entry.isFile() ? [{ name, file: path.join(root, name) }] : []
    })
}
