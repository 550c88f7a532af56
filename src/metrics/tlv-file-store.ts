// Append-only, chunked metrics files: `<root>/<app>/<series>/<chunk>.mtlv`, each a run of list entries (type 64).
// Records are buffered in memory and appended in batches (a write per request would cost more than the request);
// every read flushes first, so an answer always includes what was recorded before it.
import fs from 'node:fs'
import path from 'node:path'
import { decodeRecordList, encodeRecordList } from './tlv.js'

/** Upstream starts a new chunk once a file passes 128 KiB. */
export const defaultChunkBytes = 128 * 1024
const fileSuffix = '.mtlv'

/**
 * App ids and series names become directory names, so they are held to a safe alphabet: no separators, no
 * leading dot (which rules out `.` and `..`).
 */
const safeName = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/

export function isSafeSeriesName(name: string): boolean {
  return safeName.test(name)
}

export interface SeriesPage {
  records: Uint8Array[]
  chunk: number
  /** Every chunk of the series, ascending. */
  chunks: number[]
}

export interface LatestSeries {
  app: string
  series: string
  page: SeriesPage
}

export interface TlvFileStore {
  readonly root: string
  /** Buffers one record; throws on an app or series name that cannot be a directory name. */
  append(app: string, series: string, record: Uint8Array): void
  /** Writes buffered records to their files. */
  flush(): void
  /** For every series, the last `limit` records of its newest chunk. */
  latest(limit: number): LatestSeries[]
  /** One chunk of one series; undefined when the series or the chunk does not exist. */
  page(app: string, series: string, chunk: number): SeriesPage | undefined
  /** Every record of one series, oldest first (for short series such as balance points). */
  all(app: string, series: string): Uint8Array[]
  /** Drops buffered records and deletes every file. */
  reset(): void
}

export function openTlvFileStore(opts: { root: string; chunkBytes?: number }): TlvFileStore {
  const root = opts.root
  const chunkBytes = opts.chunkBytes ?? defaultChunkBytes
  fs.mkdirSync(root, { recursive: true })
  /** app → series → chunks on disk, ascending. */
  let chunksOf = scan(root)
  let pending = new Map<string, { app: string; series: string; records: Uint8Array[] }>()

  const seriesDir = (app: string, series: string) => path.join(root, app, series)
  const chunkFile = (app: string, series: string, chunk: number) => path.join(seriesDir(app, series), `${chunk}${fileSuffix}`)
  const knownChunks = (app: string, series: string) => chunksOf.get(app)?.get(series) ?? []

  function setChunks(app: string, series: string, chunks: number[]) {
    let bySeries = chunksOf.get(app)
    if (!bySeries) chunksOf.set(app, (bySeries = new Map()))
    bySeries.set(series, chunks)
  }

  function write(app: string, series: string, records: Uint8Array[]) {
    fs.mkdirSync(seriesDir(app, series), { recursive: true })
    const chunks = [...knownChunks(app, series)]
    let chunk = chunks.length > 0 ? chunks[chunks.length - 1]! : 0
    if (chunks.length === 0) chunks.push(0)
    let size = fileSize(chunkFile(app, series, chunk))
    let run: Uint8Array[] = []
    let runBytes = 0
    const writeRun = () => {
      if (run.length === 0) return
      fs.appendFileSync(chunkFile(app, series, chunk), encodeRecordList(run))
      size += runBytes
      run = []
      runBytes = 0
    }
    for (const record of records) {
      if (size + runBytes >= chunkBytes) {
        writeRun()
        chunk += 1
        chunks.push(chunk)
        size = 0
      }
      run.push(record)
      runBytes += 2 + record.length
    }
    writeRun()
    setChunks(app, series, chunks)
  }

  function flush() {
    if (pending.size === 0) return
    const batch = pending
    pending = new Map()
    for (const { app, series, records } of batch.values()) write(app, series, records)
  }

  function readChunk(app: string, series: string, chunk: number): Uint8Array[] {
    try {
      return decodeRecordList(fs.readFileSync(chunkFile(app, series, chunk))).records
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
  }

  return {
    root,
    append(app, series, record) {
      if (!isSafeSeriesName(app)) throw new Error(`metrics app id "${app}" cannot name a directory`)
      if (!isSafeSeriesName(series)) throw new Error(`metrics series "${series}" cannot name a directory`)
      const key = `${app}/${series}`
      const entry = pending.get(key)
      if (entry) entry.records.push(record)
      else pending.set(key, { app, series, records: [record] })
    },
    flush,
    latest(limit) {
      flush()
      const out: LatestSeries[] = []
      for (const [app, bySeries] of chunksOf) {
        for (const [series, chunks] of bySeries) {
          if (chunks.length === 0) continue
          const chunk = chunks[chunks.length - 1]!
          const records = readChunk(app, series, chunk)
          const newest = records.slice(Math.max(0, records.length - limit))
          out.push({ app, series, page: { records: newest, chunk, chunks: [...chunks] } })
        }
      }
      return out
    },
    page(app, series, chunk) {
      if (!isSafeSeriesName(app) || !isSafeSeriesName(series)) return undefined
      flush()
      const chunks = knownChunks(app, series)
      if (!chunks.includes(chunk)) return undefined
      return { records: readChunk(app, series, chunk), chunk, chunks: [...chunks] }
    },
    all(app, series) {
      flush()
      return knownChunks(app, series).flatMap(chunk => readChunk(app, series, chunk))
    },
    reset() {
      pending = new Map()
      fs.rmSync(root, { recursive: true, force: true })
      fs.mkdirSync(root, { recursive: true })
      chunksOf = new Map()
    },
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size
  } catch {
    return 0
  }
}

/** What is on disk: every `<app>/<series>/<n>.mtlv` with a safe app and series name. */
function scan(root: string): Map<string, Map<string, number[]>> {
  const found = new Map<string, Map<string, number[]>>()
  for (const app of subdirectories(root)) {
    const bySeries = new Map<string, number[]>()
    for (const series of subdirectories(path.join(root, app))) {
      const chunks = fs
        .readdirSync(path.join(root, app, series))
        .filter(file => file.endsWith(fileSuffix))
        .map(file => Number(file.slice(0, -fileSuffix.length)))
        .filter(n => Number.isSafeInteger(n) && n >= 0)
        .sort((a, b) => a - b)
      if (chunks.length > 0) bySeries.set(series, chunks)
    }
    if (bySeries.size > 0) found.set(app, bySeries)
  }
  return found
}

function subdirectories(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter(entry => entry.isDirectory() && isSafeSeriesName(entry.name))
    .map(entry => entry.name)
}
