// ZipMetricsStorages: one zip of every metrics file (usage, bundles, error counters) under
// `<metrics dir>/archives/`, replacing the previous archive so they do not pile up.
//
// One archive is built at a time: calls that arrive while it is being built share it (they get the same path), so
// no build removes a file another caller is answering. Concurrent builds used to write the same `.partial` and
// delete each other's archives. A later call, once the build has answered, replaces it as before.
import fs from 'node:fs'
import path from 'node:path'
import { writeZipArchive, type ZipPacing, type ZipSource } from './zip-archive.js'

export const archivesDirName = 'archives'

export interface MetricsArchiver {
  /** Builds an archive (or joins the one being built) and answers its absolute path. */
  archive(): Promise<string>
}

export interface ArchiverDeps {
  metricsDir: string
  /** Unix ms, names the archive. */
  now(): number
  /** Writes what is buffered in memory to the files, right before a build reads them. */
  beforeBuild(): void
  pacing?: ZipPacing
}

export function createMetricsArchiver(deps: ArchiverDeps): MetricsArchiver {
  let building: Promise<string> | undefined
  let builds = 0
  return {
    archive() {
      if (building) return building
      builds += 1
      building = archiveMetrics(deps, builds).finally(() => (building = undefined))
      return building
    },
  }
}

async function archiveMetrics(deps: ArchiverDeps, build: number): Promise<string> {
  deps.beforeBuild()
  const archives = path.join(deps.metricsDir, archivesDirName)
  fs.mkdirSync(archives, { recursive: true })
  // The build number keeps two archives made within one millisecond apart.
  const out = path.resolve(archives, `metrics-${deps.now()}-${build}.zip`)
  const partial = `${out}.partial`
  const sources = filesUnder(deps.metricsDir, '').filter(source => !source.name.startsWith(`${archivesDirName}/`))
  try {
    await writeZipArchive(partial, sources, deps.pacing)
    fs.renameSync(partial, out)
  } catch (err) {
    fs.rmSync(partial, { force: true })
    throw err
  }
  // Only one build runs at a time, so every other file here is an older archive or a crashed build's leftover.
  for (const old of fs.readdirSync(archives)) {
    if (path.join(archives, old) !== out) fs.rmSync(path.join(archives, old), { force: true, recursive: true })
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
