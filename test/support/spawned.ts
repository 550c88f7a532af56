// A process a test starts and watches from outside, as an operator's terminal would: everything it writes (stdout and
// stderr together, in order of arrival) is kept, and stopping it sends SIGTERM and waits for its exit.
import { spawn, type SpawnOptions } from 'node:child_process'

export interface Spawned {
  readonly pid: number | undefined
  /** Its exit code, or null while it runs (or when a signal ended it). */
  readonly exitCode: number | null
  /** Whether it has not exited yet. */
  readonly running: boolean
  /** Everything it has written so far. */
  output(): string
  /** SIGTERM (unless it already exited), then its exit. */
  stop(): Promise<void>
}

export function spawnCollecting(command: string, args: readonly string[], opts: Pick<SpawnOptions, 'env'> = {}): Spawned {
  const child = spawn(command, args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', chunk => (output += chunk))
  child.stderr!.on('data', chunk => (output += chunk))
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  return {
    pid: child.pid,
    get exitCode() {
      return child.exitCode
    },
    get running() {
      return child.exitCode === null && child.signalCode === null
    },
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
