// A registry on a temporary data dir, wired to a loopback model host and a small fake catalogue whose files are
// a few KB with their real SHA-1, so downloads run end to end in milliseconds.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { openStore, type Store } from '../../src/store/index.js'
import {
  createModelRegistry,
  fixedEngine,
  modelFileName,
  whisperCatalogue,
  type CatalogueEntry,
  type ModelRegistry,
  type ModelRegistryOptions,
} from '../../src/models/index.js'
import { startModelHost, type ModelHost, type ModelHostOptions } from '../support/model-host.js'

export const silentLog = pino({ level: 'silent' })
export const fixedClock = { now: () => 1_700_000_000_000 }

/** Deterministic bytes (no Math.random): a byte pattern seeded by the model name. */
export function fakeModelBytes(size: number, seed: string): Buffer {
  const out = Buffer.alloc(size)
  let s = createHash('sha1').update(seed).digest().readUInt32LE(0)
  for (let i = 0; i < size; i++) {
    s = (s * 1103515245 + 12345) % 2147483648
    out[i] = s >>> 16
  }
  return out
}

/** A catalogue entry with the real metadata of `name` but the size and SHA-1 of `body`. */
export function fakeEntry(name: string, body: Uint8Array): CatalogueEntry {
  const real = whisperCatalogue.find(entry => entry.name === name)
  if (!real) throw new Error(`no catalogue entry ${name}`)
  return { ...real, bytes: body.length, sha1: createHash('sha1').update(body).digest('hex') }
}

export interface Fixture {
  dataDir: string
  cacheDir: string
  store: Store
  host: ModelHost
  registry: ModelRegistry
  bodies: Record<string, Buffer>
  catalogue: CatalogueEntry[]
  /** Files in the cache dir (final and temporary). */
  cacheFiles(): string[]
  /** A new registry over the same data dir, database reopened (a daemon restart). */
  reopen(overrides?: Partial<ModelRegistryOptions>): ModelRegistry
  close(): Promise<void>
}

export async function startFixture(
  opts: {
    installed?: boolean
    host?: ModelHostOptions
    sizes?: Record<string, number>
    /** Exact file bodies by model name, instead of generated ones. */
    bodies?: Record<string, Buffer>
    registry?: Partial<ModelRegistryOptions>
  } = {},
): Promise<Fixture> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-models-'))
  const sizes = opts.sizes ?? { tiny: 4096, base: 6000, small: 256 * 1024 }
  const bodies =
    opts.bodies ?? Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, fakeModelBytes(size, name)]))
  const catalogue = Object.entries(bodies).map(([name, body]) => fakeEntry(name, body))
  const host = await startModelHost(opts.host)
  for (const entry of catalogue) host.serve(modelFileName(entry), bodies[entry.name])
  let store = openStore({ dataDir })
  const cacheDir = path.join(dataDir, 'models')
  const build = (overrides: Partial<ModelRegistryOptions> = {}) =>
    createModelRegistry({
      sql: store.sql,
      dataDir,
      baseUrl: host.baseUrl,
      engine: fixedEngine(opts.installed ?? true),
      clock: fixedClock,
      log: silentLog,
      catalogue,
      // Long enough that a loaded machine never mistakes a slow test transfer for a stall; stall tests set less.
      stallTimeoutMs: 5000,
      ...opts.registry,
      ...overrides,
    })
  let registries: ModelRegistry[]
  try {
    registries = [build()]
  } catch (err) {
    await host.close()
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
    throw err
  }
  return {
    dataDir,
    cacheDir,
    get store() {
      return store
    },
    host,
    registry: registries[0],
    bodies,
    catalogue,
    cacheFiles: () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []),
    reopen(overrides) {
      store.close()
      store = openStore({ dataDir })
      const registry = build(overrides)
      registries.push(registry)
      return registry
    },
    async close() {
      await Promise.all(registries.map(registry => registry.close()))
      await host.close()
      store.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Puts a file straight into the cache, as a finished download would. */
export function placeInCache(fixture: Fixture, name: string, body: Uint8Array = fixture.bodies[name]): void {
  const entry = fixture.catalogue.find(e => e.name === name)!
  fs.mkdirSync(fixture.cacheDir, { recursive: true })
  fs.writeFileSync(path.join(fixture.cacheDir, modelFileName(entry)), body)
}

/** Resolves with the error a promise rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection, got a result')
}

/** Polls until `check` holds, for states another event-loop task produces (bounded; fails on timeout). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}
