// Charts from the daemon's own metrics store (GetBundleMetrics, GetUsageMetrics): payments and volume per minute,
// balances over time, operation latency. The records are upstream's byte formats (src/metrics/records.ts): a
// bundle sample is 8 bytes (unix seconds, value), a usage record is TLV entries. Drawn with uPlot.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { call } from '../api.js'
import { Section, Status, useLoad } from '../parts.js'

const bytes = (base64: string) => Uint8Array.from(atob(base64), c => c.charCodeAt(0))
const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

function samples(list: string[]): [number, number][] {
  return list.map(bytes).filter(b => b.length === 8).map(b => [u32(b, 0), u32(b, 4)])
}

/** A usage record's TLV fields: type → 4-byte value. */
function usageFields(record: Uint8Array): Map<number, number> {
  const fields = new Map<number, number>()
  for (let at = 0; at + 2 <= record.length; ) {
    const type = record[at]!
    const length = record[at + 1]!
    if (length === 4) fields.set(type, u32(record, at + 2))
    at += 2 + length
  }
  return fields
}

interface Series {
  payments: [number[], number[], number[]]
  balances: [number[], number[], number[]]
  latency: [number[], number[]]
  totalPayments: number
}

async function loadSeries(): Promise<Series> {
  const [bundle, usage] = await Promise.all([
    call<{ apps: Record<string, { app_bundles: Record<string, { base_64_data: string[] }> }> }>('/api/reports/bundle', { body: {} }),
    call<{ apps: Record<string, { app_metrics: Record<string, { base_64_tlvs: string[] }> }> }>('/api/reports/usage', { body: {} }),
  ])
  const count = new Map<number, number>()
  const volume = new Map<number, number>()
  const users: [number, number][] = []
  const node: [number, number][] = []
  for (const app of Object.values(bundle.apps)) {
    for (const [name, data] of Object.entries(app.app_bundles)) {
      const points = samples(data.base_64_data)
      if (/^(paidAnInvoice|user2user|paidAnAddress)_/.test(name) && !name.endsWith('_failed')) {
        for (const [at, value] of points) {
          const minute = Math.floor(at / 60) * 60
          count.set(minute, (count.get(minute) ?? 0) + 1)
          volume.set(minute, (volume.get(minute) ?? 0) + value)
        }
      }
      if (name === 'usersBalance') users.push(...points)
      if (name === 'totalLndBalance') node.push(...points)
    }
  }
  const latency = new Map<number, { sum: number; n: number }>()
  for (const app of Object.values(usage.apps)) {
    for (const data of Object.values(app.app_metrics)) {
      for (const record of data.base_64_tlvs.map(bytes)) {
        const f = usageFields(record)
        const at = f.get(2)
        if (at === undefined) continue
        const minute = Math.floor(at / 60) * 60
        const us = (f.get(3) ?? 0) + (f.get(4) ?? 0) + (f.get(5) ?? 0) + (f.get(6) ?? 0)
        const slot = latency.get(minute) ?? { sum: 0, n: 0 }
        slot.sum += us
        slot.n += 1
        latency.set(minute, slot)
      }
    }
  }
  const minutes = [...count.keys()].sort((a, b) => a - b)
  // Both balance series on one time axis: each keeps its last value until it changes.
  const times = [...new Set([...users, ...node].map(([at]) => at))].sort((a, b) => a - b)
  const stepped = (points: [number, number][]) => {
    const sorted = [...points].sort((a, b) => a[0] - b[0])
    let i = 0
    let last = sorted[0]?.[1] ?? 0
    return times.map(t => {
      while (i < sorted.length && sorted[i]![0] <= t) last = sorted[i++]![1]
      return last
    })
  }
  const latencyMinutes = [...latency.keys()].sort((a, b) => a - b)
  return {
    payments: [minutes, minutes.map(m => count.get(m)!), minutes.map(m => volume.get(m)!)],
    balances: [times, stepped(users), stepped(node)],
    latency: [latencyMinutes, latencyMinutes.map(m => latency.get(m)!.sum / latency.get(m)!.n / 1000)],
    totalPayments: [...count.values()].reduce((a, b) => a + b, 0),
  }
}

/** One point alone gets an empty point ten minutes before it, so the time axis spans minutes, not years. */
function widened(data: uPlot.AlignedData): uPlot.AlignedData {
  if (data[0].length !== 1) return data
  return data.map((values, i) => [i === 0 ? (values[0] as number) - 600 : null, values[0]!]) as unknown as uPlot.AlignedData
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })
const compactValues = (_u: uPlot, splits: number[]) => splits.map(v => compact.format(v))

function Chart(props: { title: string; data: uPlot.AlignedData; series: { label: string; stroke: string; scale?: string }[]; axes?: string[]; testId: string; points: number }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const plot = new uPlot({
      width: Math.max(240, el.clientWidth),
      height: 220,
      scales: { x: { time: true } },
      series: [{}, ...props.series.map(s => ({ label: s.label, stroke: s.stroke, scale: s.scale ?? 'y', width: 2, points: { show: true } }))],
      axes: [
        {},
        { scale: 'y', label: props.axes?.[0], values: compactValues },
        ...(props.axes?.[1] ? [{ scale: 'y2', side: 1 as const, label: props.axes[1], grid: { show: false }, values: compactValues }] : []),
      ],
    }, widened(props.data), el)
    const resize = () => plot.setSize({ width: Math.max(240, el.clientWidth), height: 220 })
    addEventListener('resize', resize)
    return () => {
      removeEventListener('resize', resize)
      plot.destroy()
    }
  }, [props.data])
  return (
    <figure class="chart" data-testid={props.testId} data-points={props.points}>
      <figcaption>{props.title}</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={`${props.title}: ${props.points} data points`} />
    </figure>
  )
}

export function Charts() {
  const series = useLoad(loadSeries)
  const data = series.data
  return (
    <>
      <h1>Charts</h1>
      <p><button type="button" class="secondary" onClick={series.reload}>Refresh</button></p>
      <Status error={series.error} />
      {data && (
        <div class="charts">
          <Section title="Payments per minute">
            <Chart title="Payments and volume per minute" testId="payments-chart" points={data.totalPayments} data={data.payments}
              series={[{ label: 'payments', stroke: '#c2410c' }, { label: 'volume (sats)', stroke: '#2563eb', scale: 'y2' }]} axes={['payments', 'sats']} />
          </Section>
          <Section title="Balances">
            <Chart title="Users' total and node balance over time" testId="balances-chart" points={data.balances[0].length} data={data.balances}
              series={[{ label: "users' total (sats)", stroke: '#16a34a' }, { label: 'node (sats)', stroke: '#7c3aed' }]} axes={['sats']} />
          </Section>
          <Section title="Latency">
            <Chart title="Average operation latency per minute (ms)" testId="latency-chart" points={data.latency[0].length} data={data.latency}
              series={[{ label: 'ms', stroke: '#0891b2' }]} axes={['ms']} />
          </Section>
        </div>
      )}
    </>
  )
}
