// `relaypay models download <name>`: downloads a model through the running daemon and draws a progress bar from
// the progress route while the download request is open.
import path from 'node:path'
import fs from 'node:fs'
import { followDownload } from '../models/index.js'
import { readSecret } from '../config/index.js'
import { adminTokenFile, daemonInfoFile } from '../daemon.js'

export interface ModelsDownloadOptions {
  url?: string
  token?: string
  dataDir: string
}

const apiRoot = '/transcription/api/v1'

export async function runModelsDownload(name: string, opts: ModelsDownloadOptions): Promise<void> {
  const dataDir = path.resolve(opts.dataDir)
  let baseUrl = opts.url
  if (!baseUrl) {
    try {
      baseUrl = (JSON.parse(fs.readFileSync(path.join(dataDir, daemonInfoFile), 'utf8')) as { url: string }).url
    } catch {
      baseUrl = 'http://127.0.0.1:1776'
    }
  }
  const token = opts.token ?? readSecret(path.join(dataDir, adminTokenFile))
  const headers = { authorization: `Bearer ${token ?? ''}` }
  const modelPath = `${apiRoot}/models/${encodeURIComponent(name)}/download`
  const interactive = process.stderr.isTTY
  const answer = await followDownload({
    download: async () => {
      const res = await fetch(new URL(modelPath, baseUrl), { method: 'POST', headers })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    },
    progress: async () => {
      const res = await fetch(new URL(modelPath, baseUrl), { headers })
      if (!res.ok) throw new Error(`progress: HTTP ${res.status}`)
      return (await res.json()) as never
    },
    draw: line => process.stderr.write(interactive ? `\r${line}` : `${line}\n`),
  }).catch((err: Error) => {
    process.stderr.write(`\nrelaypay: cannot reach ${baseUrl}: ${err.message}\n`)
    process.exit(2)
  })
  if (interactive) process.stderr.write('\n')
  process.stdout.write(JSON.stringify(answer.body, null, 2) + '\n')
  process.exitCode = answer.status === 200 ? 0 : 1
}
