// One uPlot chart of per-minute series (./chart-series.ts). Nulls are gaps: uPlot draws no line across them.
// Each value axis is labelled with its unit and ticks at its lowest and highest value; a balance is drawn as steps
// (it holds until it changes), never as a slope between two samples.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import { axisSplits } from './chart-series.js'

export interface Line {
  label: string
  stroke: string
  values: (number | null)[]
  /** 'y' (the left axis) or 'y2' (the right one). */
  scale?: 'y' | 'y2'
  stepped?: boolean
}

export interface ValueAxis {
  /** The axis' title, with its unit. */
  label: string
  /** Counts and amounts start at 0; a balance spans its own lowest to highest value. */
  fromZero?: boolean
}

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 })
const tick = (v: number) => whole.format(v)

/** The lowest and highest value of an axis' lines (0 first for counts), never an empty range. */
function span(lines: Line[], fromZero: boolean): [number, number] {
  const values = lines.flatMap(l => l.values).filter((v): v is number => v !== null)
  let lo = values.length ? Math.min(...values) : 0
  let hi = values.length ? Math.max(...values) : 1
  if (fromZero) lo = Math.min(0, lo)
  if (hi === lo) hi = lo + 1
  return [lo, hi]
}

export function Chart(props: {
  title: string
  testId: string
  minutes: number[]
  lines: Line[]
  y: ValueAxis
  y2?: ValueAxis
  /** How many data points it shows (data-points, and the text a screen reader reads). */
  points: number
  /** A click on the plot: the minute under the pointer. */
  onPick?: (minute: number) => void
}) {
  const box = useRef<HTMLDivElement>(null)
  const pick = useRef(props.onPick)
  pick.current = props.onPick
  const ranges = {
    y: span(props.lines.filter(l => (l.scale ?? 'y') === 'y'), props.y.fromZero ?? false),
    y2: span(props.lines.filter(l => l.scale === 'y2'), props.y2?.fromZero ?? false),
  }
  useEffect(() => {
    const el = box.current
    if (!el) return
    const valueAxis = (scale: 'y' | 'y2', axis: ValueAxis) => ({
      scale,
      label: axis.label,
      size: 96,
      splits: () => axisSplits(...ranges[scale]),
      values: (_u: uPlot, values: number[]) => values.map(tick),
      ...(scale === 'y2' ? { side: 1 as const, grid: { show: false } } : {}),
    })
    // One minute alone gets an empty minute ten before it, so the time axis spans minutes, not years.
    const alone = props.minutes.length === 1
    const minutes = alone ? [props.minutes[0]! - 600, props.minutes[0]!] : props.minutes
    const data = [minutes, ...props.lines.map(l => (alone ? [null, l.values[0] ?? null] : l.values))] as uPlot.AlignedData
    const plot = new uPlot({
      width: Math.max(240, el.clientWidth),
      height: 240,
      scales: {
        x: { time: true },
        y: { range: () => ranges.y },
        ...(props.y2 ? { y2: { range: () => ranges.y2 } } : {}),
      },
      series: [{ label: 'time' }, ...props.lines.map(l => ({
        label: l.label,
        stroke: l.stroke,
        scale: l.scale ?? 'y',
        width: 2,
        spanGaps: false,
        points: { show: props.points <= 60 },
        ...(l.stepped ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {}),
      }))],
      axes: [{ label: 'time (this browser\'s clock)' }, valueAxis('y', props.y), ...(props.y2 ? [valueAxis('y2', props.y2)] : [])],
      hooks: {
        ready: [u => u.over.addEventListener('click', () => {
          const at = u.cursor.idx
          if (at !== null && at !== undefined && pick.current) pick.current(minutes[at]!)
        })],
      },
    }, data, el)
    const resize = () => plot.setSize({ width: Math.max(240, el.clientWidth), height: 240 })
    addEventListener('resize', resize)
    return () => {
      removeEventListener('resize', resize)
      plot.destroy()
    }
  }, [props.minutes, props.lines])
  return (
    <figure class="chart" data-testid={props.testId} data-points={props.points} data-last-minute={props.minutes[props.minutes.length - 1]}>
      <figcaption>{props.title}</figcaption>
      <div ref={box} class={props.onPick ? 'chart-box pickable' : 'chart-box'} role="img" aria-label={`${props.title}: ${props.points} data points`} />
      <p class="hint" data-testid="axes">
        Left axis: {props.y.label}, {tick(ranges.y[0])} to {tick(ranges.y[1])}
        {props.y2 && `; right axis: ${props.y2.label}, ${tick(ranges.y2[0])} to ${tick(ranges.y2[1])}`}.
      </p>
    </figure>
  )
}
