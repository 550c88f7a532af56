// The Metrics caller's operations. They only read what the recorders wrote (and reset or archive it); nothing
// here records a call: the dispatcher's outcomes and the event stream do that.
import { OperationError, type HandlerTable, type Clock } from '../../bus/index.js'
import type { Wallet } from '../../wallet/index.js'
import type { LightningNode } from '../../node/index.js'
import { unixSeconds } from '../../units/index.js'
import { createMetricsArchiver } from '../archive.js'
import { rootApp } from '../bundle.js'
import { withDeadline } from '../deadline.js'
import type { ErrorCounters } from '../error-windows.js'
import type { FailedCallsRing } from '../failed-calls.js'
import { nodeReport } from '../node-report.js'
import type { NodeWatch } from '../node-watch.js'
import type { PrometheusMetrics } from '../prometheus.js'
import type { SeriesPage, TlvFileStore } from '../tlv-file-store.js'
import { encodeRecordList } from '../tlv.js'

/** Upstream answers the latest 30 records of each series when no limit is given. */
const defaultLatestLimit = 30
const maxLatestLimit = 100_000
/** GetFailedCalls answers this many when no limit is given (the catalogue caps a limit at the ring's default size). */
const defaultFailedCallsLimit = 100

export interface MetricsHandlerDeps {
  usage: TlvFileStore
  bundles: TlvFileStore
  errors: ErrorCounters
  /** The latest failed calls with their reasons. */
  failures: FailedCallsRing
  prometheus: PrometheusMetrics
  watch: NodeWatch
  node: LightningNode
  /** GetAppsMetrics is the wallet's report over its own tables. */
  wallet: Pick<Wallet, 'appsMetrics'>
  clock: Clock
  metricsDir: string
  allowReset: boolean
  sampleNow(): Promise<void>
  /** Every part PingSubProcesses checks, by name. */
  pings: Readonly<Record<string, () => Promise<unknown>>>
  pingTimeoutMs: number
  /** Why outgoing payments are locked (the watchdog), if they are. */
  outgoingLockedReason(): string | undefined
  /** Wipes what the daemon derives from the files besides the files themselves. */
  afterReset(): void
}

export function metricsHandlers(deps: MetricsHandlerDeps): HandlerTable {
  const { usage, bundles, errors, clock } = deps
  const nodes = nodeReport({ node: deps.node, bundles, clock, sampleNow: deps.sampleNow })
  let lockedSince: number | undefined
  const archiver = createMetricsArchiver({
    metricsDir: deps.metricsDir,
    now: () => clock.now(),
    beforeBuild: () => {
      usage.flush()
      bundles.flush()
      errors.persist()
    },
  })

  return {
    GetUsageMetrics: async input => ({
      apps: latestByApp(usage, input.limit, usagePage, series => ({ app_metrics: series })),
    }),

    GetSingleUsageMetrics: async input => usagePage(singlePage(usage, input)),

    GetBundleMetrics: async input => ({
      apps: latestByApp(bundles, input.limit, bundlePage, series => ({ app_bundles: series })),
    }),

    GetSingleBundleMetrics: async input => bundlePage(singlePage(bundles, input)),

    GetErrorStats: async () => errors.report(),

    GetFailedCalls: async input => ({
      failures: deps.failures.list({ since: input.since, until: input.until, limit: input.limit ?? defaultFailedCallsLimit }),
      capacity: deps.failures.capacity,
    }),

    GetAppsMetrics: async input => deps.wallet.appsMetrics(input),

    GetNodeMetrics: async input => nodes.nodeMetrics(input),

    GetNodeForwardingMetrics: async input => nodes.forwardingMetrics(input),

    ZipMetricsStorages: async () => ({ path: await archiver.archive() }),

    ResetMetricsStorages: async () => {
      if (!deps.allowReset) {
        throw new OperationError('forbidden', 'resetting the metrics storages is disabled ([metrics] allow_reset = false)')
      }
      usage.reset()
      bundles.reset()
      errors.reset()
      // The reasons went with the counts they explain.
      deps.failures.reset()
      deps.afterReset()
      return {}
    },

    PingSubProcesses: async () => {
      const checks = Object.entries(deps.pings).map(async ([name, ping]) => {
        try {
          await withDeadline(ping, deps.pingTimeoutMs, name)
          return undefined
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err)
          return reason.startsWith(name) ? reason : `${name} failed: ${reason}`
        }
      })
      const failures = (await Promise.all(checks)).filter((failure): failure is string => failure !== undefined)
      if (failures.length > 0) throw new OperationError('upstream_failed', failures.join('; '))
      return {}
    },

    GetProvidersDisruption: async () => {
      const reachable = await deps.watch.checkNode()
      const locked = deps.outgoingLockedReason() !== undefined
      if (!locked) lockedSince = undefined
      else lockedSince ??= clock.now()
      const state = deps.watch.state()
      const since = [reachable ? undefined : state.downSince, lockedSince].filter((at): at is number => at !== undefined)
      if (since.length === 0) return { disruptions: [] }
      const sinceUnix = unixSeconds(Math.min(...since))
      return { disruptions: [{ provider_pubkey: state.pubkey ?? '', provider_type: 'lnd', since_unix: sinceUnix }] }
    },

    PrometheusMetrics: async () => ({ contentType: deps.prometheus.contentType, body: await deps.prometheus.text() }),
  }
}

/** The latest records of every series of a store, grouped by app; `wrap` names an app's series as the wire does. */
function latestByApp<P, A>(
  store: TlvFileStore,
  limit: number | undefined,
  shape: (page: SeriesPage) => P,
  wrap: (series: Record<string, P>) => A,
): Record<string, A> {
  const byApp: Record<string, Record<string, P>> = {}
  for (const { app, series, page } of store.latest(latestLimit(limit))) (byApp[app] ??= {})[series] = shape(page)
  return Object.fromEntries(Object.entries(byApp).map(([app, series]) => [app, wrap(series)]))
}

function latestLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isSafeInteger(limit) || limit <= 0) return defaultLatestLimit
  return Math.min(limit, maxLatestLimit)
}

/**
 * Upstream's custom checks on SingleMetricReq: `app_id` must be empty and `metrics_name` set. The file is named
 * by `metrics_name` alone: `<series>` for a `_root` series, `<app id>/<series>` for an application's.
 */
function singlePage(store: TlvFileStore, input: MetricsFileRequest): SeriesPage {
  if (input.app_id !== '') throw new OperationError('invalid_input', 'SingleMetricReq::root..app_id: custom check failed')
  if (input.metrics_name === '') {
    throw new OperationError('invalid_input', 'SingleMetricReq::root..metrics_name: custom check failed')
  }
  const slash = input.metrics_name.indexOf('/')
  const app = slash === -1 ? rootApp : input.metrics_name.slice(0, slash)
  const series = slash === -1 ? input.metrics_name : input.metrics_name.slice(slash + 1)
  const page = Number.isSafeInteger(input.page) ? store.page(app, series, input.page) : undefined
  if (!page) throw new OperationError('not_found', `tlv file for ${app} ${series} chunk ${input.page} not found`)
  return page
}

/** Which file of a metrics store a SingleMetricReq names (its `metric_type` picks the store). */
export interface MetricsFileRequest {
  app_id: string
  metrics_name: string
  page: number
}

/**
 * A metrics file as the WebRTC data channel serves it (upstream LoadRawMetricsFile): its records as stored, a run
 * of list entries. Upstream requires `app_id` to be the app the caller addressed and reads that app's series
 * `metrics_name`; `app_id` "" names the file as GetSingleUsageMetrics does (`<series>` or `<app id>/<series>`).
 */
export function rawMetricsFile(store: TlvFileStore, input: MetricsFileRequest, callerAppId: string): Uint8Array {
  let page: SeriesPage | undefined
  if (input.app_id === '') page = singlePage(store, input)
  else if (input.app_id !== callerAppId) throw new OperationError('invalid_input', 'SingleMetricReq::root..app_id: custom check failed')
  else if (input.metrics_name === '') throw new OperationError('invalid_input', 'SingleMetricReq::root..metrics_name: custom check failed')
  else {
    page = Number.isSafeInteger(input.page) ? store.page(input.app_id, input.metrics_name, input.page) : undefined
    if (!page) throw new OperationError('not_found', `tlv file for ${input.app_id} ${input.metrics_name} chunk ${input.page} not found`)
  }
  return encodeRecordList(page.records)
}

const base64 = (record: Uint8Array) => Buffer.from(record.buffer, record.byteOffset, record.byteLength).toString('base64')

function usagePage(page: SeriesPage) {
  return { base_64_tlvs: page.records.map(base64), current_chunk: page.chunk, available_chunks: page.chunks }
}

function bundlePage(page: SeriesPage) {
  return { base_64_data: page.records.map(base64), current_chunk: page.chunk, available_chunks: page.chunks }
}
