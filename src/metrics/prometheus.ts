// `GET /metrics` in the Prometheus text format: build info, call counts, failures and latency by operation and
// transport, the money that moved (from the domain events, one increment per settled event), and gauges read when
// scraped (users' balance, relay connections, store bytes, node reachability, scheduler runs). One registry per
// daemon, never prom-client's global one, so two daemons in one process do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from '../vendor/prom-client.js'
import type { CallOutcome, DomainEvent } from '../bus/index.js'
import type { BuildInfo } from './build-info.js'

export interface PrometheusSources {
  /** Canonical operation name for a name or alias; undefined for names outside the catalogue. */
  operationName(op: string): string | undefined
  usersBalanceMsat(): Promise<number>
  nodeReachable(): Promise<boolean>
  relays?: () => readonly { url: string; connected: boolean }[]
  /** Completed runs per scheduled job since start. */
  schedulerRuns?: () => Readonly<Record<string, number>>
  buildInfo?: BuildInfo
  /** Clients connected to the embedded relay; undefined when it does not run here. */
  embeddedRelayConnections?: () => number | undefined
  /** Bytes on disk of each database, by name. */
  storeBytes?: () => Readonly<Record<string, number>>
}

export interface PrometheusMetrics {
  observe(outcome: CallOutcome): void
  /** Counts the money a domain event says moved. Each settled event is emitted once, after its commit. */
  onEvent(event: DomainEvent): void
  text(): Promise<string>
  readonly contentType: string
}

/** Latency buckets in seconds: sub-millisecond reads up to payments that wait on the network. */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export function createPrometheus(sources: PrometheusSources): PrometheusMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })

  const calls = new Counter({
    name: 'relaypay_operations_total',
    help: 'Finished operation calls by operation, transport and outcome (ok or error).',
    labelNames: ['operation', 'transport', 'outcome'] as const,
    registers: [registry],
  })
  const failures = new Counter({
    name: 'relaypay_operation_errors_total',
    help: 'Failed operation calls by operation, transport and error code.',
    labelNames: ['operation', 'transport', 'code'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'relaypay_operation_duration_seconds',
    help: 'Time spent authenticating, validating and handling a call, by operation and transport.',
    labelNames: ['operation', 'transport'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  })
  new Gauge({
    name: 'relaypay_users_balance_msat',
    help: 'Sum of all wallet balances in msat.',
    registers: [registry],
    async collect() {
      this.set(await sources.usersBalanceMsat())
    },
  })
  new Gauge({
    name: 'relaypay_node_reachable',
    help: '1 when the Lightning node answered when scraped, else 0.',
    registers: [registry],
    async collect() {
      this.set((await sources.nodeReachable()) ? 1 : 0)
    },
  })
  new Gauge({
    name: 'relaypay_relay_connected',
    help: '1 for each relay the daemon is connected to, 0 for each it is not.',
    labelNames: ['relay'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const relay of sources.relays?.() ?? []) this.set({ relay: relay.url }, relay.connected ? 1 : 0)
    },
  })
  new Counter({
    name: 'relaypay_scheduler_runs_total',
    help: 'Completed runs of each scheduled job since the daemon started.',
    labelNames: ['job'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [job, runs] of Object.entries(sources.schedulerRuns?.() ?? {})) this.inc({ job }, runs)
    },
  })

  if (sources.buildInfo) {
    new Gauge({
      name: 'relaypay_build_info',
      help: 'Always 1; the labels say which build runs.',
      labelNames: ['version', 'commit', 'node_version'] as const,
      registers: [registry],
    }).set({ ...sources.buildInfo }, 1)
  }
  new Gauge({
    name: 'relaypay_embedded_relay_connections',
    help: 'Clients connected to the embedded relay (absent when the daemon uses external relays).',
    registers: [registry],
    collect() {
      this.reset()
      const connections = sources.embeddedRelayConnections?.()
      if (connections !== undefined) this.set(connections)
    },
  })
  new Gauge({
    name: 'relaypay_store_bytes',
    help: 'Bytes on disk of each SQLite database, its write-ahead log included.',
    labelNames: ['database'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [database, bytes] of Object.entries(sources.storeBytes?.() ?? {})) this.set({ database }, bytes)
    },
  })
  const money = moneyCounters(registry)

  // The labelled children of each (operation, transport), made once: prom-client validates and hashes a label
  // object on every call otherwise, which was ~2% of a payment's CPU. Bounded by the catalogue × the transports.
  const children = new Map<string, { ok?: Counter.Internal; error?: Counter.Internal; latency: Histogram.Internal<string> }>()
  const seriesFor = (operation: string, transport: string) => {
    const key = `${operation} ${transport}`
    let series = children.get(key)
    if (!series) {
      series = { latency: latency.labels({ operation, transport }) }
      children.set(key, series)
    }
    return series
  }

  return {
    contentType: registry.contentType,
    observe(outcome) {
      // Names outside the catalogue come from callers; one series per invented name would grow without bound.
      const operation = sources.operationName(outcome.op) ?? 'unknown'
      const series = seriesFor(operation, outcome.transport)
      // A series appears with its first call, as before: no zero series for outcomes that never happened.
      const outcomeLabel = outcome.ok ? 'ok' : 'error'
      ;(series[outcomeLabel] ??= calls.labels({ operation, transport: outcome.transport, outcome: outcomeLabel })).inc()
      if (!outcome.ok) failures.inc({ operation, transport: outcome.transport, code: outcome.errorCode ?? 'internal' })
      const { authUs, validateUs, handleUs } = outcome.timings
      series.latency.observe((authUs + validateUs + handleUs) / 1e6)
    },
    onEvent: money.onEvent,
    text: () => registry.metrics(),
  }
}

/**
 * Money that moved, in msat, from the domain events: an invoice paid from outside (received), a payment settled
 * over Lightning (sent), the service fee of every settled payment (earned), and a payment from one wallet here to
 * another (internal; its receiving side, an internal invoice.paid, is not counted again). The wallet emits each
 * event once, after the transaction that changed the state commits, so a retried or replayed settlement that
 * changes nothing is not counted.
 */
function moneyCounters(registry: Registry) {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] })
  const received = counter('relaypay_received_msat_total', 'Msat received from outside by paid invoices.')
  const sent = counter('relaypay_sent_msat_total', 'Msat sent over Lightning by settled payments (fees not included).')
  const fees = counter('relaypay_fees_earned_msat_total', 'Service fees charged on settled payments, in msat.')
  const internal = counter('relaypay_internal_transfers_msat_total', 'Msat paid from one wallet here to another.')
  const payments = new Counter({
    name: 'relaypay_settled_payments_total',
    help: 'Settled money movements by flow: received, sent or internal.',
    labelNames: ['flow'] as const,
    registers: [registry],
  })
  return {
    onEvent(event: DomainEvent) {
      if (event.type === 'invoice.paid') {
        if (event.internal) return
        received.inc(event.amountMsat)
        payments.inc({ flow: 'received' })
      } else if (event.type === 'payment.settled') {
        ;(event.internal ? internal : sent).inc(event.amountMsat)
        fees.inc(event.feeMsat)
        payments.inc({ flow: event.internal ? 'internal' : 'sent' })
      }
    },
  }
}
