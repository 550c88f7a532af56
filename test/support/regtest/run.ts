// Runs a command of the regtest network (lncli, btcctl) and answers its stdout; a failure carries its stderr.
import { execFile } from 'node:child_process'

export function run(binary: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const said = `${stderr}`.trim() || `${stdout}`.trim() || error.message
        reject(Object.assign(new Error(`${binary.split('/').pop()} ${args.filter(a => !a.startsWith('--')).join(' ')}: ${said}`), { stderr: `${stderr}` }))
      } else resolve(`${stdout}`)
    })
  })
}
