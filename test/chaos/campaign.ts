// `npm run chaos`: the long fault campaign. The SIGKILL files share CHAOS_CYCLES kills (default 1,000), then the
// relay is killed CHAOS_RELAY_KILLS times (default 20) and LND misbehaves for CHAOS_LND_ROUNDS rounds (default
// 50). Files run one after another, without the test runner's per-file time limit; CHAOS_SEED makes the whole
// campaign reproducible. Prints each file's result and time, and exits 1 if any failed.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadMixes } from './load-mixes.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const total = Number(process.env.CHAOS_CYCLES ?? 1000)
const seed = process.env.CHAOS_SEED ?? String(Date.now() % 1_000_000_007)
const sigkillFiles = Object.keys(loadMixes).map(name => `sigkill-${name}`)
const share = Math.ceil(total / sigkillFiles.length)
const runs = [
  ...sigkillFiles.map(name => ({ name, cycles: share })),
  { name: 'relay-restart', cycles: Number(process.env.CHAOS_RELAY_KILLS ?? 20) },
  { name: 'lnd-faults', cycles: Number(process.env.CHAOS_LND_ROUNDS ?? 50) },
]

function run(name: string, cycles: number): Promise<{ code: number | null; ms: number }> {
  const started = Date.now()
  return new Promise(resolve => {
    const child = spawn(process.execPath, [path.join(here, `${name}.test.js`)], {
      env: { ...process.env, CHAOS_CYCLES: String(cycles), CHAOS_SEED: seed, FORCE_COLOR: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    child.on('close', code => resolve({ code, ms: Date.now() - started }))
  })
}

process.stdout.write(`chaos campaign: seed ${seed}, ${share * sigkillFiles.length} daemon kills\n`)
const campaignStarted = Date.now()
let failed = 0
for (const { name, cycles } of runs) {
  const { code, ms } = await run(name, cycles)
  if (code !== 0) failed++
  process.stdout.write(`${code === 0 ? 'ok  ' : 'FAIL'} ${name}: ${cycles} cycles in ${Math.round(ms / 1000)} s\n`)
}
process.stdout.write(`chaos campaign: ${failed} failed, ${Math.round((Date.now() - campaignStarted) / 1000)} s, seed ${seed}\n`)
process.exit(failed > 0 ? 1 : 0)
