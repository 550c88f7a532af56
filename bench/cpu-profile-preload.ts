// Preloaded into a daemon under test (`NODE_OPTIONS=--import <this file>`; Node 20 refuses `--cpu-prof` there).
// SIGUSR2 starts the inspector's CPU profiler; the next SIGUSR2 stops it and writes
// `<BENCH_PROFILE_DIR>/<pid>-<n>.cpuprofile`, so a profile covers the measured window and not the setup.
import fs from 'node:fs'
import inspector from 'node:inspector'
import path from 'node:path'

const dir = process.env.BENCH_PROFILE_DIR
if (dir) {
  const session = new inspector.Session()
  session.connect()
  session.post('Profiler.enable')
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 500) })
  let running = false
  let count = 0
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true
      session.post('Profiler.start')
      return
    }
    running = false
    session.post('Profiler.stop', (err, result) => {
      if (err) return
      fs.writeFileSync(path.join(dir, `${process.pid}-${count++}.cpuprofile`), JSON.stringify(result.profile))
      fs.writeFileSync(path.join(dir, `${process.pid}.written`), String(count))
    })
  })
}
