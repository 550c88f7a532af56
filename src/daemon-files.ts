// The files a running daemon leaves in its data dir for the CLI and tests. Their own module, so that `relaypay
// init`, `call` and `models` find them without loading the whole daemon (every room, seconds on a busy machine).
import fs from 'node:fs'
import path from 'node:path'

/** What `relaypay call` and tests read to find a running daemon. */
export const daemonInfoFile = 'daemon.json'
export const adminTokenFile = 'admin.token'

/** Written once the daemon serves: its HTTP URL, its relays and its pid (mode 0600). */
export function writeDaemonInfo(dataDir: string, info: { url: string; relays: string[]; pid: number }): void {
  fs.writeFileSync(path.join(dataDir, daemonInfoFile), JSON.stringify(info) + '\n', { mode: 0o600 })
}

/** The pid of a daemon that serves the data dir now (its daemon.json names a live process), else undefined. */
export function runningDaemonPid(dataDir: string): number | undefined {
  let pid: number
  try {
    pid = JSON.parse(fs.readFileSync(path.join(dataDir, daemonInfoFile), 'utf8')).pid
  } catch {
    return undefined
  }
  try {
    process.kill(pid, 0)
    return pid
  } catch (err) {
    // EPERM: the process lives but is another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined
  }
}

/** Removes daemon.json if this process wrote it: another daemon's (a second start refused) is left alone. */
export function removeDaemonInfo(dataDir: string): void {
  const file = path.join(dataDir, daemonInfoFile)
  try {
    if (JSON.parse(fs.readFileSync(file, 'utf8')).pid !== process.pid) return
  } catch {
    // unreadable or gone: nothing of another daemon's to keep
  }
  fs.rmSync(file, { force: true })
}
