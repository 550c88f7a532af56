// Charts from the daemon's own metrics store (GetBundleMetrics, GetUsageMetrics), one slot per minute
// (./chart-series.ts): payments and volume, the users' total balance and the node's assets (each on its own chart
// and axis), failures, and operation latency. A minute of the failures chart (a click on it, or one of the minutes
// listed under it) opens what failed then: the failed calls by operation (counted from the usage metrics), why
// they failed (GetFailedCalls: the daemon keeps the latest failures' reasons in memory), and the failed payments in
// Invoices & payments.
import { useMemo, useState } from 'preact/hooks'
import { call } from '../api.js'
import { Section, Status, Table, useLoad } from '../parts.js'
import { Chart } from './chart.js'
import { buildSeries, type BundleReport, type Series, type UsageReport } from './chart-series.js'

async function loadSeries(): Promise<Series> {
  const [bundle, usage] = await Promise.all([
    call<BundleReport>('/api/reports/bundle', { body: {} }),
    call<UsageReport>('/api/reports/usage', { body: {} }),
  ])
  return buildSeries(bundle, usage)
}

const clock = (unixSeconds: number) => new Date(unixSeconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
/** A payment fails some time after it started: its failure's minute links to the payments started in the ten before. */
const failedPaymentLead = 600

/** The failed payments' list for a minute: Invoices & payments, status failed, started in the ten minutes up to its end. */
export const failedPaymentsHref = (minute: number) =>
  `#/payments?status=failed&since=${minute - failedPaymentLead}&until=${minute + 60}`

/** One failed call as GetFailedCalls answers it. */
interface FailedCall {
  at_unix: number
  operation: string
  app: string
  transport: string
  code: string
  message: string
}

interface FailedCallsAnswer {
  failures: FailedCall[]
  capacity: number
}

/** The most GetFailedCalls answers at once: a minute's failures, as many as the daemon keeps. */
const failedCallsLimit = 1000

const appName = (app: string) => (app === '_root' ? 'none (operator, admin or wallet key)' : app)

/** A minute's failed calls grouped by operation, app, code and reason, the most frequent first. */
function reasonRows(failures: FailedCall[]): { operation: string; app: string; code: string; message: string; count: number }[] {
  const groups = new Map<string, { operation: string; app: string; code: string; message: string; count: number }>()
  for (const f of failures) {
    const key = JSON.stringify([f.operation, f.app, f.code, f.message])
    const group = groups.get(key) ?? { operation: f.operation, app: f.app, code: f.code, message: f.message, count: 0 }
    group.count++
    groups.set(key, group)
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation))
}

function Reasons(props: { minute: number }) {
  const { minute } = props
  const reasons = useLoad(
    () => call<FailedCallsAnswer>('/api/reports/failures', { body: { since: minute, until: minute + 60, limit: failedCallsLimit } }),
    [minute],
  )
  const data = reasons.data
  return (
    <>
      <Status error={reasons.error && `The reasons could not be read: ${reasons.error}`} />
      {data && (
        <>
          <Table caption={`Why calls failed at ${clock(minute)}`} head={['Operation', 'App', 'Code', 'Reason', 'Failed calls']}
            rows={reasonRows(data.failures).map(r => [r.operation, appName(r.app), r.code, r.message, String(r.count)])}
            empty="No reason kept for this minute." />
          <p class="hint" data-testid="reasons-kept">The counts come from the usage metrics, which the daemon keeps on disk. The
            reasons are kept in memory for the last {data.capacity.toLocaleString('en-US')} failed calls since the daemon
            started: a minute before its start, or further back than that, has counts but no reasons.</p>
        </>
      )}
    </>
  )
}

function Failures(props: { series: Series; minute: number }) {
  const { series, minute } = props
  const at = series.minutes.indexOf(minute)
  const calls = series.failures.filter(f => f.minute === minute)
  const payments = series.failedPayments[at] ?? 0
  return (
    <div data-testid="failures-of-minute">
      <h3>What failed at {clock(minute)}</h3>
      <p>
        {payments} failed {payments === 1 ? 'payment' : 'payments'}: <a href={failedPaymentsHref(minute)}>list the failed payments started
        from {clock(minute - failedPaymentLead)} to {clock(minute + 60)}</a>
      </p>
      <Table caption={`Failed calls at ${clock(minute)}`} head={['Operation', 'App', 'Failed calls']}
        rows={calls.map(f => [f.operation, appName(f.app), String(f.count)])}
        empty="No call failed in this minute." />
      <Reasons minute={minute} />
    </div>
  )
}

export function Charts() {
  const series = useLoad(loadSeries)
  const data = series.data
  const [picked, setPicked] = useState<number | undefined>()
  const lines = useMemo(() => data && {
    payments: [
      { label: 'payments', stroke: '#c2410c', values: data.payments },
      { label: 'volume (sats)', stroke: '#2563eb', values: data.volume, scale: 'y2' as const },
    ],
    users: [{ label: "users' total (sats)", stroke: '#16a34a', values: data.usersBalance, stepped: true }],
    node: [{ label: "node's assets (sats)", stroke: '#7c3aed', values: data.nodeAssets, stepped: true }],
    failures: [
      { label: 'failed payments', stroke: '#dc2626', values: data.failedPayments },
      { label: 'failed calls', stroke: '#9333ea', values: data.failedCalls },
    ],
    latency: [{ label: 'ms', stroke: '#0891b2', values: data.latencyMs }],
  }, [data])
  const failedMinutes = data ? data.minutes.filter((_, i) => (data.failedPayments[i] ?? 0) + (data.failedCalls[i] ?? 0) > 0) : []
  return (
    <>
      <h1>Charts</h1>
      <p><button type="button" class="secondary" onClick={series.reload}>Refresh</button></p>
      <p class="hint">One point per minute. A gap is a stretch the daemon recorded nothing in (it was not running); a count
        is 0 in a minute it recorded and nothing happened in.</p>
      <Status error={series.error} />
      {data && lines && (
        <div class="charts">
          <Section title="Payments per minute">
            <Chart title="Payments and volume per minute" testId="payments-chart" points={data.totals.payments} minutes={data.minutes}
              lines={lines.payments} y={{ label: 'payments per minute', fromZero: true }} y2={{ label: 'sats per minute', fromZero: true }} />
          </Section>
          <Section title="Users' total balance">
            <Chart title="What the users hold, in sats" testId="users-balance-chart" points={data.totals.balancePoints} minutes={data.minutes}
              lines={lines.users} y={{ label: 'sats' }} />
          </Section>
          <Section title="Node assets">
            <Chart title="What the node holds (on-chain and our side of its channels), in sats" testId="node-assets-chart"
              points={data.totals.balancePoints} minutes={data.minutes} lines={lines.node} y={{ label: 'sats' }} />
          </Section>
          <Section title="Failures per minute">
            <Chart title="Failed payments and failed calls per minute (click a minute for what failed)" testId="failures-chart"
              points={data.totals.failures} minutes={data.minutes} lines={lines.failures} y={{ label: 'failures per minute', fromZero: true }}
              onPick={setPicked} />
            {failedMinutes.length > 0 && (
              <p class="actions">Minutes with failures:{' '}
                {failedMinutes.slice(-12).map(m => (
                  <button type="button" class="link" aria-pressed={m === picked} onClick={() => setPicked(m)}>{clock(m)}</button>
                ))}
              </p>
            )}
            {picked !== undefined && <Failures series={data} minute={picked} />}
          </Section>
          <Section title="Latency">
            <Chart title="Average operation latency per minute (ms)" testId="latency-chart" points={data.totals.latencyMinutes}
              minutes={data.minutes} lines={lines.latency} y={{ label: 'milliseconds', fromZero: true }} />
          </Section>
        </div>
      )}
    </>
  )
}
