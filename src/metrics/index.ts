// The metrics room's door. It records from two feeds, never from handlers: the dispatcher's outcome of every call
// (usage records, error windows, the latest failures with their reasons, kept in memory, and Prometheus) and the
// domain event stream (bundle series); a timer samples what no event announces (balances, node reachability,
// memory). Files live under `<data_dir>/metrics/`:
//   usage/<app>/<operation>/<chunk>.mtlv   bundle/<app>/<series>/<chunk>.mtlv   cache/error-stats.json   archives/
import path from 'node:path'
import fs from 'node:fs'
import type { Observable, Subscription, CallOutcome, DomainEvent, Clock, HandlerTable } from '../bus/index.js'
import type { Logger } from 'pino'
import { catalogue } from '../../schema/catalogue.js'
import type { LightningNode } from '../node/index.js'
import type { SqlStore } from '../store/index.js'
import type { Wallet } from '../wallet/index.js'
import { archivesDirName } from './archive.js'
import { createBundleRecorder } from './bundle.js'
import { openErrorCounters } from './error-windows.js'
import { createFailedCallsRing } from './failed-calls.js'
import { metricsHandlers, rawMetricsFile, type MetricsFileRequest } from './handlers/metrics.js'
import { createNodeWatch } from './node-watch.js'
import { createPrometheus } from './prometheus.js'
import { openTlvFileStore } from './tlv-file-store.js'
import { usageEntry } from './usage.js'
import { readBuildInfo } from './build-info.js'
import { databaseBytes } from './store-bytes.js'

export { encodeUsageRecord, encodeBundleSample, usageField, type UsageRecord } from './records.js'
export { decodeRecordList, decodeTlv, encodeRecordList, encodeTlv, listEntryType, readUint32, uint32Bytes } from './tlv.js'
export { openTlvFileStore, defaultChunkBytes, type TlvFileStore, type SeriesPage } from './tlv-file-store.js'
export { openErrorCounters, errorWindows, type ErrorCounters, type ErrorStatsReport } from './error-windows.js'
export { createBundleRecorder, txSeriesKey, rootApp, type BundleRecorder } from './bundle.js'
export { writeZipArchive, type ZipSource } from './zip-archive.js'
export { withDeadline, DeadlineExceeded } from './deadline.js'

/** The `[metrics]` section of the configuration. */
export interface MetricsSettings {
  /** Write a usage record per call (upstream RECORD_PERFORMANCE). */
  record_usage: boolean
  /** Allow ResetMetricsStorages (upstream ALLOW_RESET_METRICS_STORAGES). */
  allow_reset: boolean
  /** Seconds between balance, reachability and memory samples. */
  sample_seconds: number
}

export interface MetricsDeps {
  dataDir: string
  outcomes$: Observable<CallOutcome>
  events$: Observable<DomainEvent>
  node: LightningNode
  /** Checked by PingSubProcesses (SQLite or PostgreSQL, whichever holds the books). */
  sql: SqlStore
  /** The wallet's door: GetAppsMetrics and the users' balance samples. */
  wallet: Pick<Wallet, 'appsMetrics' | 'openBalanceReader'>
  clock: Clock
  log: Logger
  config: MetricsSettings
  /**
   * Parts PingSubProcesses checks besides the store, the metrics files and the node, which it always checks:
   * e.g. `{ relays: () => pool.ping(), scheduler: () => scheduler.ping() }`. Each must settle within the timeout.
   */
  pings?: Readonly<Record<string, () => Promise<unknown>>>
  /** Relay connection state for the Prometheus gauge. */
  relays?: () => readonly { url: string; connected: boolean }[]
  /** Completed runs per scheduled job, for the Prometheus counter. */
  schedulerRuns?: () => Readonly<Record<string, number>>
  /** Clients connected to the embedded relay, when it runs (see embeddedRelayGauges). */
  embeddedRelayConnections?: () => number | undefined
  /** Why outgoing payments are locked, if they are (e.g. the wallet's outgoing gate `closedReason`). */
  outgoingLockedReason?: () => string | undefined
  /** Per ping and per node call made for metrics (default 2000, upstream's). */
  pingTimeoutMs?: number
  /** Size at which a metrics file starts a new chunk (default 128 KiB, upstream's). */
  chunkBytes?: number
  /** How many of the latest failed calls GetFailedCalls keeps (default 1000; smaller in tests of the bound). */
  failuresKept?: number
  /** How often buffered records are written (default 5000 ms). */
  flushIntervalMs?: number
  /** The first sample waits for this (the daemon serves): it asks the node, which a start should not wait for. */
  firstSampleAfter?: Promise<unknown>
}

export interface Metrics {
  handlers: HandlerTable
  /**
   * One metrics file, as stored, for the WebRTC data channel: `request` is a SingleMetricReq (USAGE_METRIC or
   * BUNDLE_METRIC), `callerAppId` the app the metrics caller addressed. Throws OperationError (bad request, no file).
   */
  metricsFile(request: MetricsFileRequest & { metric_type: 'USAGE_METRIC' | 'BUNDLE_METRIC' }, callerAppId: string): Uint8Array
  /** The Prometheus exposition text (what `GET /metrics` answers). */
  prometheus(): Promise<string>
  /** Writes buffered records and counters now. */
  flush(): void
  /** Stops the timers and the subscriptions, then writes everything buffered. */
  stop(): Promise<void>
}

const errorCountersPersistMs = 60_000

export function createMetrics(deps: MetricsDeps): Metrics {
  const { clock, log, config } = deps
  const metricsDir = path.join(deps.dataDir, 'metrics')
  const timeoutMs = deps.pingTimeoutMs ?? 2000
  const usage = openTlvFileStore({ root: path.join(metricsDir, 'usage'), chunkBytes: deps.chunkBytes })
  const bundles = openTlvFileStore({ root: path.join(metricsDir, 'bundle'), chunkBytes: deps.chunkBytes })
  const errors = openErrorCounters({ file: path.join(metricsDir, 'cache', 'error-stats.json'), clock })
  const failures = createFailedCallsRing(deps.failuresKept)
  let bundle = createBundleRecorder(bundles, clock)
  const watch = createNodeWatch({
    node: deps.node,
    wallet: deps.wallet,
    bundle: { add: (...args) => bundle.add(...args), onEvent: event => bundle.onEvent(event) },
    clock,
    log,
    timeoutMs,
  })

  const names = operationNames()
  const prometheus = createPrometheus({
    operationName: op => names.get(op),
    usersBalanceMsat: watch.usersBalanceMsat,
    nodeReachable: watch.checkNode,
    relays: deps.relays,
    schedulerRuns: deps.schedulerRuns,
    buildInfo: readBuildInfo(),
    embeddedRelayConnections: deps.embeddedRelayConnections,
    storeBytes: () => databaseBytes(deps.dataDir),
  })

  let sampling: Promise<void> | undefined
  /** A reset came while a sample ran: part of that sample went to the recorder the reset replaced. */
  let stale = false
  const sampleNow = (): Promise<void> => {
    if (sampling && !stale) return sampling
    stale = false
    const next: Promise<void> = (sampling ?? Promise.resolve())
      .then(() => watch.sample())
      .catch(err => log.error({ err }, 'metrics sample failed'))
      .finally(() => {
        if (sampling === next) sampling = undefined
      })
    sampling = next
    return next
  }

  const subscriptions: Subscription[] = [
    deps.outcomes$.subscribe(outcome => {
      // A throw inside a Subject's subscriber would surface as an uncaught error: metrics must never break calls.
      try {
        errors.record(outcome.ok)
        // Operations outside the catalogue are left out, as from the usage records whose counts the reasons explain.
        if (!outcome.ok && names.has(outcome.op)) failures.record(outcome, clock.now())
        prometheus.observe(outcome)
        if (config.record_usage) {
          const entry = usageEntry(outcome, clock.now(), name => names.has(name))
          if (entry) usage.append(entry.app, entry.series, entry.record)
        }
      } catch (err) {
        log.error({ err, op: outcome.op }, 'could not record a call outcome')
      }
    }),
    deps.events$.subscribe(event => {
      try {
        bundle.onEvent(event)
        prometheus.onEvent(event)
      } catch (err) {
        log.error({ err, type: event.type }, 'could not record a domain event')
      }
    }),
  ]

  const flush = () => {
    usage.flush()
    bundles.flush()
  }
  const timers = [
    setInterval(() => guarded(flush, 'flush'), deps.flushIntervalMs ?? 5000),
    setInterval(() => guarded(() => errors.persist(), 'save error counters'), errorCountersPersistMs),
    setInterval(() => void sampleNow(), config.sample_seconds * 1000),
  ]
  for (const timer of timers) timer.unref()
  if (deps.firstSampleAfter) void deps.firstSampleAfter.then(() => sampleNow())
  else void sampleNow()

  function guarded(work: () => void, what: string) {
    try {
      work()
    } catch (err) {
      log.error({ err }, `metrics: could not ${what}`)
    }
  }

  const handlers = metricsHandlers({
    usage,
    bundles,
    errors,
    failures,
    prometheus,
    watch,
    node: deps.node,
    wallet: deps.wallet,
    clock,
    metricsDir,
    allowReset: config.allow_reset,
    sampleNow,
    pings: {
      store: () => deps.sql.one('SELECT 1 AS one'),
      metrics: () => fs.promises.access(metricsDir, fs.constants.W_OK),
      node: () => deps.node.getInfo(),
      ...deps.pings,
    },
    pingTimeoutMs: timeoutMs,
    outgoingLockedReason: () => deps.outgoingLockedReason?.(),
    afterReset: () => {
      // Balance points are written on change only; a fresh recorder writes the current values again.
      bundle = createBundleRecorder(bundles, clock)
      fs.rmSync(path.join(metricsDir, archivesDirName), { recursive: true, force: true })
      stale = sampling !== undefined
    },
  })

  let stopped: Promise<void> | undefined
  return {
    handlers,
    metricsFile: (request, callerAppId) =>
      rawMetricsFile(request.metric_type === 'BUNDLE_METRIC' ? bundles : usage, request, callerAppId),
    prometheus: () => prometheus.text(),
    flush: () => {
      flush()
      errors.persist()
    },
    stop: () =>
      (stopped ??= (async () => {
        for (const subscription of subscriptions) subscription.unsubscribe()
        for (const timer of timers) clearInterval(timer)
        await sampling
        watch.close()
        guarded(flush, 'flush')
        guarded(() => errors.persist(), 'save error counters')
      })()),
  }
}

/** Every operation name and alias → the operation's name. */
function operationNames(): Map<string, string> {
  const names = new Map<string, string>()
  for (const entry of catalogue) {
    names.set(entry.name, entry.name)
    for (const alias of entry.aliases ?? []) if (alias.name) names.set(alias.name, entry.name)
  }
  return names
}
