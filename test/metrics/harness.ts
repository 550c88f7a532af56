// The metrics room as the daemon builds it, without the daemon: a real store and embedded node in a temporary data
// dir, a manual clock, and the two feeds (call outcomes, domain events) as subjects the test pushes into.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { Subject } from 'rxjs'
import { pino } from 'pino'
import { openStore, type Store } from '../../src/store/index.js'
import { createNode, type LightningNode } from '../../src/node/index.js'
import { createMetrics, type Metrics, type MetricsDeps, type MetricsSettings } from '../../src/metrics/index.js'
import type { CallOutcome } from '../../src/bus/dispatcher.js'
import type { DomainEvent } from '../../src/bus/events.js'
import type { Caller, Transport } from '../../src/bus/context.js'
import { ManualTime } from '../support/manual-time.js'
import { appsReport } from '../../src/wallet/apps-report.js'
import { openBalanceReader } from '../../src/wallet/balance-reader.js'

export const startMs = Date.UTC(2025, 4, 1, 12, 0, 0)

export interface MetricsHarness {
  dataDir: string
  time: ManualTime
  store: Store
  node: LightningNode
  metrics: Metrics
  outcomes: Subject<CallOutcome>
  events: Subject<DomainEvent>
  /** Calls one of the room's handlers as the dispatcher would. */
  call(op: string, input?: unknown): Promise<any>
  /** Stops the room only (keeps node, store and files), for a restart. */
  restart(changes?: Partial<HarnessOptions>): Promise<void>
  close(): Promise<void>
}

export interface HarnessOptions {
  settings: Partial<MetricsSettings>
  extra: Partial<Pick<MetricsDeps, 'pings' | 'relays' | 'schedulerRuns' | 'outgoingLockedReason' | 'pingTimeoutMs' | 'failuresKept'>>
}

export async function openMetricsHarness(opts: Partial<HarnessOptions> = {}): Promise<MetricsHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-metrics-'))
  const time = new ManualTime(startMs)
  const store = openStore({ dataDir, synchronous: 'normal' })
  const node = await createNode(
    { backend: 'embedded', network: 'regtest', alias: 'metrics-test', simulatePayments: false, mock: true, dataDir },
    { db: store.db, clock: time, random: n => new Uint8Array(randomBytes(n)), timers: time },
  )
  let outcomes = new Subject<CallOutcome>()
  let events = new Subject<DomainEvent>()
  const log = pino({ level: 'silent' })
  let current = { ...opts }
  const build = () =>
    createMetrics({
      dataDir,
      outcomes$: outcomes,
      events$: events,
      node,
      sql: store.sql,
      wallet: { appsMetrics: appsReport(store.sql), openBalanceReader: () => openBalanceReader(store.sql, store.file) },
      clock: time,
      log,
      config: { record_usage: true, allow_reset: false, sample_seconds: 3600, ...current.settings },
      ...current.extra,
    })
  const harness: MetricsHarness = {
    dataDir,
    time,
    store,
    node,
    metrics: build(),
    outcomes,
    events,
    async call(op, input = {}) {
      const handler = (harness.metrics.handlers as Record<string, (input: unknown, ctx: unknown) => Promise<unknown>>)[op]
      if (!handler) throw new Error(`the metrics room has no handler for ${op}`)
      return handler(input, {
        caller: { kind: 'metrics', operatorId: 'test', appId: '' },
        requestId: 'test',
        transport: 'internal',
        log,
        clock: time,
        signal: new AbortController().signal,
      })
    },
    async restart(changes = {}) {
      await harness.metrics.stop()
      current = { ...current, ...changes }
      outcomes = harness.outcomes = new Subject()
      events = harness.events = new Subject()
      harness.metrics = build()
    },
    async close() {
      await harness.metrics.stop()
      await node.close()
      store.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return harness
}

export interface OutcomeFields {
  caller?: Caller | null
  transport?: Transport
  ok?: boolean
  errorCode?: string | null
  errorMessage?: string | null
  authUs?: number
  validateUs?: number
  handleUs?: number
}

/** One finished call as the dispatcher reports it; by default a successful admin call over HTTP. */
export function outcome(op: string, fields: OutcomeFields = {}): CallOutcome {
  const ok = fields.ok ?? true
  return {
    op,
    transport: fields.transport ?? 'http',
    caller: fields.caller === undefined ? { kind: 'admin', adminId: 'admin1' } : fields.caller,
    ok,
    errorCode: ok ? null : (fields.errorCode ?? 'invalid_input'),
    errorMessage: ok ? null : (fields.errorMessage ?? 'invalid request body: body: expected an object'),
    timings: { authUs: fields.authUs ?? 10, validateUs: fields.validateUs ?? 20, handleUs: fields.handleUs ?? 30 },
    requestId: 'test-request',
    durationMs: 0.06,
  }
}

/** A usage record decoded by hand: TLV entries of type, length, value. */
export function decodeUsage(base64: string) {
  const bytes = Buffer.from(base64, 'base64')
  const fields = new Map<number, Buffer>()
  for (let at = 0; at < bytes.length; ) {
    fields.set(bytes[at]!, bytes.subarray(at + 2, at + 2 + bytes[at + 1]!))
    at += 2 + bytes[at + 1]!
  }
  return {
    processedAt: fields.get(2)!.readUInt32BE(0),
    parseUs: fields.get(3)!.readUInt32BE(0),
    authUs: fields.get(4)!.readUInt32BE(0),
    validateUs: fields.get(5)!.readUInt32BE(0),
    handleUs: fields.get(6)!.readUInt32BE(0),
    batchSize: fields.get(7)!.readUInt32BE(0),
    batch: fields.get(8)![0] === 1,
    nostr: fields.get(9)![0] === 1,
    success: fields.get(10)![0] === 1,
  }
}

/** A bundle sample decoded by hand: [unix seconds, value]. */
export function decodeSample(base64: string): [number, number] {
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.length !== 8) throw new Error(`a bundle sample is 8 bytes, not ${bytes.length}`)
  return [bytes.readUInt32BE(0), bytes.readUInt32BE(4)]
}
