// A rates room wired to the loopback provider fake, a temporary SQLite store and a clock the test moves.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { createRates, type RateProviderName, type Rates } from '../../src/rates/index.js'
import { openStore, type Store } from '../../src/store/index.js'
import { startRateProviders, type RateProvidersFake } from '../support/rate-providers.js'

export const silentLog = pino({ level: 'silent' })

export class TestClock {
  constructor(public nowMs: number) {}
  now(): number {
    return this.nowMs
  }
  advance(ms: number): void {
    this.nowMs += ms
  }
}

export interface RatesFixture {
  rates: Rates
  providers: RateProvidersFake
  clock: TestClock
  store: Store
  /** Closes the store and opens it again with a fresh rates room: what a daemon restart does. */
  restart(): void
  close(): Promise<void>
}

export interface RatesFixtureOptions {
  /** The test's now, e.g. '2025-06-15T12:00:00Z'. */
  now: string
  timeoutMs?: number
  /** The fake providers' own clock; defaults to the rates room's clock. */
  providerClock?: { now(): number }
  /** Replaces some providers' base URLs; `false` switches a provider off. */
  providers?: Partial<Record<RateProviderName, string | false>>
}

export async function startRatesFixture(opts: RatesFixtureOptions): Promise<RatesFixture> {
  const clock = new TestClock(Date.parse(opts.now))
  const providers = await startRateProviders({ clock: opts.providerClock ?? clock })
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-rates-'))
  const build = () => {
    const store = openStore({ dataDir, synchronous: 'normal' })
    const rates = createRates({
      sql: store.sql,
      providers: { ...providers.urls, ...opts.providers },
      clock,
      log: silentLog,
      timeoutMs: opts.timeoutMs ?? 2_000,
    })
    return { store, rates }
  }
  const f = { providers, clock, ...build() } as RatesFixture
  f.restart = () => {
    f.store.close()
    Object.assign(f, build())
  }
  f.close = async () => {
    f.store.close()
    await providers.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  return f
}

/** The rejection of a promise that must fail. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (err) {
    return err as Error
  }
  throw new Error('expected a rejection, got an answer')
}
