// What a process costs while a bench runs: CPU time (daemon: /proc/<pid>/stat; the bench itself: process.cpuUsage)
// and resident memory, plus the switch of the CPU profiler preloaded by cpu-profile-preload.ts.
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

/** The preload module that makes a daemon answer SIGUSR2 with a CPU profile (see cpu-profile-preload.ts). */
export const profilePreload = fileURLToPath(new URL('./cpu-profile-preload.js', import.meta.url))

/** Environment for a daemon whose measured windows are profiled into `dir`. */
export function profilingEnv(dir: string): Record<string, string> {
  fs.mkdirSync(dir, { recursive: true })
  return { NODE_OPTIONS: `--import ${profilePreload}`, BENCH_PROFILE_DIR: dir }
}

/** User + system CPU of a process in ms, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms). */
export function processCpuMs(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

/** User + system CPU in ms of each thread of a process, by thread id (/proc/<pid>/task); empty off Linux. */
export function threadsCpuMs(pid: number | undefined): Map<string, number> {
  const out = new Map<string, number>()
  let tids: string[] = []
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10)
    } catch {
      // the thread ended meanwhile
    }
  }
  return out
}

/** Resident set size of a process in MB (VmRSS from /proc/<pid>/status), or null off Linux. */
export function processRssMb(pid: number | undefined): number | null {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
    return line ? Math.round(Number(line[1]) / 102.4) / 10 : null
  } catch {
    return null
  }
}

/** CPU of the daemon and of this (client) process over a measured window. */
export function cpuWindow(daemonPid: number | undefined) {
  const daemonBefore = processCpuMs(daemonPid)
  const clientBefore = process.cpuUsage()
  return {
    end(operations: number) {
      const daemonAfter = processCpuMs(daemonPid)
      const client = process.cpuUsage(clientBefore)
      const per = (ms: number) => Math.round((ms / Math.max(1, operations)) * 1000) / 1000
      return {
        daemonCpuMsPerOp: daemonBefore === null || daemonAfter === null ? null : per(daemonAfter - daemonBefore),
        clientCpuMsPerOp: per((client.user + client.system) / 1000),
      }
    },
  }
}

/** Toggles the daemon's profiler (a no-op unless it was started with profilingEnv); stop waits for the file. */
export function profiler(daemonPid: number | undefined, dir: string | undefined) {
  const written = () => {
    try {
      return Number(fs.readFileSync(path.join(dir!, `${daemonPid}.written`), 'utf8'))
    } catch {
      return 0
    }
  }
  return {
    start() {
      if (dir && daemonPid) process.kill(daemonPid, 'SIGUSR2')
    },
    async stop(): Promise<string | undefined> {
      if (!dir || !daemonPid) return undefined
      const before = written()
      process.kill(daemonPid, 'SIGUSR2')
      for (let i = 0; i < 200 && written() === before; i++) await sleep(50)
      return path.join(dir, `${daemonPid}-${before}.cpuprofile`)
    },
  }
}
