// `relaypay relay` as its own process, for tests where the relay dies or several daemons share it.
import { spawn, type ChildProcess } from 'node:child_process'
import { cliPath } from './daemon.js'
import { scanLogKeysOf } from './log-keys.js'

export interface RelayProcess {
  url: string
  port: number
  child: ChildProcess
  kill(): Promise<void>
  stop(): Promise<void>
}

/** `relaypay relay` on `port` (0: any), resolved once it listens. */
export async function startRelayProcess(dataDir: string, port = 0): Promise<RelayProcess> {
  const child = spawn(process.execPath, [cliPath, 'relay', '--data-dir', dataDir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
  scanLogKeysOf(child, `the relay in ${dataDir}`)
  let output = ''
  child.stdout!.on('data', chunk => (output += chunk))
  child.stderr!.on('data', chunk => (output += chunk))
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not start:\n${output}`)), 20_000)
    child.stdout!.on('data', () => {
      const line = output.split('\n').find(l => l.includes('"relay listening"'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line).url)
      }
    })
    exited.then(() => reject(new Error(`relay exited:\n${output}`)))
  })
  return {
    url,
    port: Number(new URL(url).port),
    child,
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}
