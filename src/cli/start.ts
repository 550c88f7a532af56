// `relaypay start`: load the config, run the daemon, reload it on SIGHUP, stop cleanly on SIGINT/SIGTERM.
import v8 from 'node:v8'
import type { Daemon } from '../daemon.js'
import { compactOncePerInterval } from './heap-compaction.js'

/**
 * How far V8 lets the heap grow past what the last full collection kept before it collects again: 1.5 times. Left to
 * itself V8 picks up to 4 times under a steady stream of short-lived objects, which a payments daemon under load is:
 * on the LND backend at 32 payments in flight the heap kept about 47 MB alive and let garbage pile up to about
 * 120 MB more, and the process stood at 205–230 MB. At 1.5 it stood at 175–178 MB, with no more CPU per payment
 * measured (docs/observability.md, "Memory"). The flag is read at every collection and is the process's own, workers
 * included. It is set once the daemon serves: loading the modules is a burst of allocation that lives on, and with
 * the flag set from the first line a start made two or three full collections instead of one.
 */
const heapGrowingPercent = 50

export interface StartOptions {
  config?: string
  dataDir?: string
  httpHost?: string
  httpPort?: number
}

export async function runStart(opts: StartOptions): Promise<void> {
  // SIGHUP's default ends the process: it is taken before the daemon's modules load (about 0.7 s of a 1.1 s start
  // on a quiet machine, when they were imported first), and one that arrives during the start is applied once the
  // daemon runs.
  let daemon: Daemon | undefined
  let reloadWanted = false
  process.on('SIGHUP', () => (daemon ? daemon.reload(load) : (reloadWanted = true)))
  // SIGINT and SIGTERM are taken from the first line too: the daemon writes daemon.json (its pid) before the start
  // returns, and a supervisor may stop it then. One that arrives during the start ends the process at once with
  // status 0, as a stop asked for: a start may wait without end (a standby for the active daemon's lock, a daemon for
  // its LND), and nothing is served before it returns. Ending there is what a crash at that moment is, which the
  // books are made for; the signal's own default would do the same but report a death by signal (a shell above it
  // prints "Terminated").
  let stopping = false
  const stop = () => {
    if (!daemon) process.exit(0)
    // A second signal while stopping must not kill the process half-way: in-flight calls are still finishing.
    if (stopping) return
    stopping = true
    daemon.stop().then(
      () => process.exit(0),
      err => {
        process.stderr.write(`relaypay: stop failed: ${(err as Error).message}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  const { loadConfig, ConfigError } = await import('../config/index.js')
  const { startDaemon } = await import('../daemon.js')
  // The same file, environment and flags at start and at every SIGHUP.
  const load = () =>
    loadConfig({
      file: opts.config,
      flags: { data_dir: opts.dataDir, 'http.host': opts.httpHost, 'http.port': opts.httpPort },
    })
  let config
  try {
    config = load()
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const problem of err.problems) process.stderr.write(`relaypay: ${problem}\n`)
      process.exit(1)
    }
    throw err
  }
  try {
    daemon = await startDaemon(config)
  } catch (err) {
    // A setting to change (a port in use) is said as such; anything else is why the start failed.
    process.stderr.write(err instanceof ConfigError ? `relaypay: ${err.message}\n` : `relaypay: cannot start: ${(err as Error).message}\n`)
    process.exit(1)
  }
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`)
  compactOncePerInterval()
  if (reloadWanted) daemon.reload(load)
}
