// Reads a V8 .cpuprofile (from `node --cpu-prof`) and prints where the time went: the top functions by self time
// and by inclusive time (a function's own samples plus everything it called, each sample counted once per
// function even under recursion), and self time summed per source file.
// Each sample counts as one median sampling interval, not as the time since the previous sample: on a loaded
// machine the thread is often descheduled between two samples, and that wait was charged to whatever happened to
// be on the stack when it ran again (an Invoice$toObject of 16 samples showed as 100 ms, 7% of the profile, in a
// run where it was 1% of the samples).
// `node build/bench/cpuprofile.js <file.cpuprofile> [top]`; BENCH_PROFILE_WINDOW=<from>,<to> (µs of the monotonic
// clock, as the attack bench prints its attack's window) keeps only the samples taken in that window, so a profile of
// a whole run (`--cpu-prof` writes one at exit) shows the attack alone.
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

export interface ProfileRow {
  name: string
  ms: number
  share: number
}

export interface ProfileSummary {
  totalMs: number
  idleMs: number
  self: ProfileRow[]
  inclusive: ProfileRow[]
  files: ProfileRow[]
}

/** What one sample stands for: the median gap between samples, which preemption does not stretch. */
export function sampleWeightUs(profile: Profile): number {
  const gaps = profile.timeDeltas.slice(1).filter(dt => dt > 0).sort((a, b) => a - b)
  return gaps[Math.floor(gaps.length / 2)] ?? 0
}

export function summarise(profile: Profile, top = 30): ProfileSummary {
  const weight = sampleWeightUs(profile)
  const byId = new Map(profile.nodes.map(node => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const label = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    const file = url.replace(/^.*\/(build|node_modules)\//, '$1/').replace(/^file:\/\//, '')
    return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
  }
  const fileOf = (node: ProfileNode) => {
    const url = node.callFrame.url
    if (!url) return node.callFrame.functionName // (program), (garbage collector), (idle)
    const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
    return m ? `npm:${m[1]}` : url.replace(/^.*\/build\//, '').replace(/^node:/, 'node:')
  }
  const selfUs = new Map<string, number>()
  const inclUs = new Map<string, number>()
  const fileUs = new Map<string, number>()
  let totalUs = 0
  let idleUs = 0
  profile.samples.forEach(id => {
    const dt = weight
    const node = byId.get(id)!
    totalUs += dt
    if (node.callFrame.functionName === '(idle)') {
      idleUs += dt
      return
    }
    const own = label(node)
    selfUs.set(own, (selfUs.get(own) ?? 0) + dt)
    fileUs.set(fileOf(node), (fileUs.get(fileOf(node)) ?? 0) + dt)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!)
      if (seen.has(name)) continue
      seen.add(name)
      inclUs.set(name, (inclUs.get(name) ?? 0) + dt)
    }
  })
  const busyUs = totalUs - idleUs
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: Math.round((us / busyUs) * 1000) / 10 }))
  return {
    totalMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    self: rows(selfUs),
    inclusive: rows(inclUs).filter(row => !row.name.startsWith('(root)')),
    files: rows(fileUs),
  }
}

export function printSummary(summary: ProfileSummary, out: (line: string) => void = line => process.stdout.write(line + '\n')): void {
  out(`total ${summary.totalMs} ms, idle ${summary.idleMs} ms (shares below are of busy time)`)
  for (const [title, rows] of [['self', summary.self], ['inclusive', summary.inclusive], ['self by file', summary.files]] as const) {
    out(`\n== ${title}`)
    for (const row of rows) out(`${row.share.toFixed(1).padStart(5)}% ${row.ms.toFixed(1).padStart(8)} ms  ${row.name}`)
  }
}

/** Where the time under every frame whose label contains `pattern` went: its direct callees, by inclusive time. */
export function callees(profile: Profile, pattern: string): ProfileRow[] {
  const byId = new Map(profile.nodes.map(node => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(build|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`
  const under = new Map<string, number>()
  let total = 0
  const weight = sampleWeightUs(profile)
  profile.samples.forEach(id => {
    const dt = weight
    // The outermost matching frame on this sample's stack, and the frame it called.
    let callee = '(self)'
    let found = false
    let below = '(self)'
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!)
      if (name.includes(pattern)) {
        found = true
        callee = below
      }
      below = name
    }
    if (!found) return
    total += dt
    under.set(callee, (under.get(callee) ?? 0) + dt)
  })
  return [...under]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }))
}

/** The profile with only the samples taken between `fromUs` and `toUs` (the profile's own clock). */
export function windowOf(profile: Profile, fromUs: number, toUs: number): Profile {
  const samples: number[] = []
  const timeDeltas: number[] = []
  let at = profile.startTime
  let last = fromUs
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (at < fromUs || at > toUs) return
    samples.push(id)
    timeDeltas.push(at - last)
    last = at
  })
  return { ...profile, samples, timeDeltas, startTime: fromUs, endTime: toUs }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2]
  if (!file) throw new Error('usage: cpuprofile.js <file.cpuprofile> [top | --under <function name>]')
  const whole = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const window = process.env.BENCH_PROFILE_WINDOW?.split(',').map(Number)
  const profile = window ? windowOf(whole, window[0]!, window[1]!) : whole
  if (process.argv[3] === '--under') {
    for (const row of callees(profile, process.argv[4] ?? '')) {
      process.stdout.write(`${row.share.toFixed(1).padStart(5)}% ${row.ms.toFixed(1).padStart(8)} ms  ${row.name}\n`)
    }
  } else printSummary(summarise(profile, Number(process.argv[3] ?? 40)))
}
