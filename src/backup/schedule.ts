// `[backup]`: an archive into `dir` every `interval_seconds`, keeping the newest `keep`. Each backup runs as a
// `relaypay backup` child process: VACUUM INTO and hashing take seconds on a large ledger, and the daemon's one
// thread serves payments meanwhile.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'

export interface BackupScheduleOptions {
  dataDir: string
  /** The `[backup]` section; no schedule while `dir` is unset. */
  settings: { dir?: string; interval_seconds: number; keep: number }
  log: Logger
}

export interface BackupSchedule {
  stop(): Promise<void>
}

const cli = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../bin/relaypay.js')
const archiveName = /^relaypay-backup-\d{8}T\d{9}Z\.tar\.gz$/

/** `relaypay-backup-20261125T221530123Z.tar.gz`: names sort by time. */
export function scheduledArchiveName(at: Date): string {
  return `relaypay-backup-${at.toISOString().replace(/[-:.]/g, '')}.tar.gz`
}

export function startBackupSchedule(opts: BackupScheduleOptions): BackupSchedule | undefined {
  if (opts.settings.dir === undefined) return undefined
  const dir = path.resolve(opts.dataDir, opts.settings.dir)
  const keep = opts.settings.keep
  let running: Promise<void> | undefined
  const runOnce = () => {
    if (running) return // a backup slower than the interval: the next tick waits for the next interval
    running = new Promise<void>(resolve => {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = path.join(dir, scheduledArchiveName(new Date()))
      const child = spawn(process.execPath, [cli, 'backup', file, '--data-dir', opts.dataDir], { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', chunk => (stderr += chunk))
      child.on('close', code => {
        if (code === 0) {
          const removed = prune(dir, keep)
          opts.log.info({ file, removed }, 'scheduled backup written')
        } else opts.log.error({ file, code, error: stderr.trim().slice(0, 500) }, 'scheduled backup failed')
        resolve()
      })
    }).finally(() => (running = undefined))
  }
  const timer = setInterval(runOnce, opts.settings.interval_seconds * 1000)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}

/** Removes all but the newest `keep` scheduled archives; returns the names removed. */
function prune(dir: string, keep: number): string[] {
  const archives = fs
    .readdirSync(dir)
    .filter(name => archiveName.test(name))
    .sort()
  const old = archives.slice(0, Math.max(0, archives.length - keep))
  for (const name of old) fs.rmSync(path.join(dir, name), { force: true })
  return old
}
