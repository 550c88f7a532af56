import fs from 'node:fs'
import { startDaemon } from './build/test/support/daemon.js'
import { benchNostr, nostrBenchConfig } from './build/bench/nostr.js'
import { profilingEnv } from './build/bench/process-stats.js'
const cli = process.argv[2] + '/build/bin/relaypay.js'
const dir = process.argv[3]
const daemon = await startDaemon({ cli, config: nostrBenchConfig, env: { RELAYPAY_LOG_LEVEL: 'warn', ...profilingEnv(dir) } })
const pid = daemon.process.pid
const tasks = () => Object.fromEntries(fs.readdirSync(`/proc/${pid}/task`).map(t => {
  const s = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'); const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'))
  const f = s.split(') ')[1].split(' '); return [t, { comm, ms: (Number(f[11]) + Number(f[12])) * 10 }]
}))
// warm-up window, then measured
await benchNostr({ daemon, durationMs: 1500, inFlight: [64], operations: ['GetUserInfo'], warmupMs: 1500 })
const before = tasks()
const { rows } = await benchNostr({ daemon, durationMs: 4000, inFlight: [64], operations: ['GetUserInfo'], warmupMs: 500, profileDir: dir })
const after = tasks()
const n = rows[0].roundTrips
console.log(JSON.stringify(rows[0]))
const d = Object.entries(after).map(([t, a]) => [t === String(pid) ? 'main' : t, a.comm, ((a.ms - (before[t]?.ms ?? 0)) / n).toFixed(3)]).filter(r => Number(r[2]) > 0.005).sort((a, b) => b[2] - a[2])
for (const r of d) console.log(r.join('\t'))
await daemon.stop()
