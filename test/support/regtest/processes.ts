// The daemons of a regtest network write their output to a log file in its folder. Started by `npm run regtest -- up`
// they run detached (the command exits and they go on); started by a test file they stay in its process group, so
// that the test runner, killing a file that hangs, kills its network with it. They are stopped by pid; a pid is only
// signalled while /proc still shows it running the binary that was started, so a pid the system gave to another
// process since is left alone.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'

/** The niceness of a test network's daemons (0 is a normal process's; 19 the lowest priority). */
const testNetworkNice = 10

export interface Started {
  pid: number
  binary: string
}

/** Starts `binary`, its stdout and stderr appended to `logFile`; `detached` puts it in a session of its own. */
export function startDaemonProcess(binary: string, args: string[], logFile: string, detached: boolean): Started {
  const out = fs.openSync(logFile, 'a')
  try {
    const child = spawn(binary, args, { detached, stdio: ['ignore', out, out] })
    if (child.pid === undefined) throw new Error(`could not start ${binary}`)
    // A test's network yields the processor to the daemons under test beside it: a daemon whose thread stands still
    // for seconds loses its PostgreSQL lock session, and the network only answers the test that waits on it.
    if (!detached) os.setPriority(child.pid, testNetworkNice)
    child.unref()
    return { pid: child.pid, binary }
  } finally {
    fs.closeSync(out)
  }
}

/** The process is alive and still the one started from `binary`. */
export function running({ pid, binary }: Started): boolean {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    return cmdline.split('\0')[0] === binary && state !== 'Z'
  } catch {
    return false
  }
}

/**
 * The process has ended (gone, or a zombie not yet reaped). Not the opposite of running(): between spawn and exec a
 * child's cmdline is still its parent's, so running() is false for a moment in a process that is starting fine.
 */
export function exited({ pid }: Started): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z'
  } catch {
    return true
  }
}

const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Every thread of the process has ended, so its sockets and files are closed. A zombie leader is not enough: in a
 * multi-threaded process (LND and btcd are Go programs) the main thread can be a zombie while other threads still
 * run and hold the listening sockets. A .ci/run restarted LND A 70 ms after its SIGKILL, while its old process
 * still logged and held the gRPC port: the new one exited with "bind: address already in use".
 */
function gone({ pid, binary }: Started): boolean {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    if (state === 'Z') return fs.readdirSync(`/proc/${pid}/task`).length <= 1
    // Alive, unless the pid now belongs to another program (ours was reaped and the pid reused).
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] !== binary
  } catch {
    return true
  }
}

/**
 * SIGTERM (or `signal`), then SIGKILL if it is still running after `graceMs`; resolves once it is gone, every
 * thread of it, so that what it listened on is free.
 */
export async function stopProcess(process_: Started, opts: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<void> {
  if (running(process_)) {
    process.kill(process_.pid, opts.signal ?? 'SIGTERM')
    const deadline = Date.now() + (opts.graceMs ?? 30_000)
    while (running(process_)) {
      if (Date.now() > deadline) {
        process.kill(process_.pid, 'SIGKILL')
        break
      }
      await pause(50)
    }
  }
  while (!gone(process_)) await pause(50)
}

/** SIGKILL now, without waiting: for a process about to exit that must not leave its network behind. */
export function killNow(process_: Started): void {
  if (running(process_)) process.kill(process_.pid, 'SIGKILL')
}
