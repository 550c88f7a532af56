// `relaypay models …`: the transcription model registry of a running daemon, over its HTTP API.
//   list                 a table of the supported models (name, params, memory, speed, downloaded, available, default)
//   default [name]       prints the stored default; with a name, sets it first
//   download <name>      downloads a model, drawing a progress bar from the progress route meanwhile
import path from 'node:path'
import fs from 'node:fs'
import { followDownload, type ModelsOut } from '../models/index.js'
import { commandConfig, daemonEndpoint } from './command-config.js'

export interface ModelsCommandOptions {
  url?: string
  token?: string
  dataDir?: string
  /** The config file `start` reads (default: <data dir>/relaypay.toml if present). */
  config?: string
}

const apiRoot = '/transcription/api/v1'

interface DaemonApi {
  baseUrl: string
  headers: Record<string, string>
}

/** The daemon of the configuration (its daemon.json, else its address) unless --url names one; its admin token unless --token. */
async function daemonApi(opts: ModelsCommandOptions): Promise<DaemonApi> {
  const daemon = await daemonEndpoint(await commandConfig(opts))
  const token = opts.token ?? daemon.adminToken
  return { baseUrl: opts.url ?? daemon.url, headers: { authorization: `Bearer ${token ?? ''}` } }
}

/** One JSON request; an unreachable daemon ends the command with exit code 2. */
async function request(api: DaemonApi, method: string, route: string, body?: unknown) {
  try {
    const res = await fetch(new URL(apiRoot + route, api.baseUrl), {
      method,
      headers: body === undefined ? api.headers : { ...api.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  } catch (err) {
    process.stderr.write(`relaypay: cannot reach ${api.baseUrl}: ${(err as Error).message}\n`)
    process.exit(2)
  }
}

/** Prints an error answer's detail and sets exit code 1; true when the answer was a success. */
function succeeded(answer: { status: number; body: Record<string, unknown> }): boolean {
  if (answer.status === 200) return true
  const detail = typeof answer.body.detail === 'string' ? answer.body.detail : JSON.stringify(answer.body)
  process.stderr.write(`relaypay: ${detail} (HTTP ${answer.status})\n`)
  process.exitCode = 1
  return false
}

export async function runModelsList(opts: ModelsCommandOptions & { json?: boolean }): Promise<void> {
  const answer = await request(await daemonApi(opts), 'GET', '/models')
  if (!succeeded(answer)) return
  const list = answer.body as unknown as ModelsOut
  if (opts.json) {
    process.stdout.write(JSON.stringify(list, null, 2) + '\n')
    return
  }
  process.stdout.write(modelsTable(list))
}

/** The list as an aligned text table, with the engine's state underneath. */
export function modelsTable(list: ModelsOut): string {
  const yes = (value: boolean) => (value ? 'yes' : 'no')
  const rows = [
    ['NAME', 'PARAMS', 'MEMORY', 'SPEED', 'DOWNLOADED', 'AVAILABLE', 'DEFAULT'],
    ...list.models.map(m => [
      m.name,
      m.params,
      m.approx_memory,
      m.relative_speed,
      yes(m.downloaded),
      yes(m.available),
      m.is_default ? 'yes' : '',
    ]),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map(row => row[column]!.length)))
  const lines = rows.map(row => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd())
  const engine = list.local_engine_installed
    ? 'local engine: installed'
    : 'local engine: not installed (npm install @fugood/whisper.node); no model is available'
  return `${lines.join('\n')}\n\n${engine}\n`
}

export async function runModelsDefault(name: string | undefined, opts: ModelsCommandOptions): Promise<void> {
  const api = await daemonApi(opts)
  const answer =
    name === undefined ? await request(api, 'GET', '/models/default') : await request(api, 'PUT', '/models/default', { model: name })
  if (!succeeded(answer)) return
  process.stdout.write(`${String(answer.body.default_model)}\n`)
}

/** How to get the engine, said where a download cannot start without it. */
export const engineInstallHint =
  'the local transcription engine is not installed on the daemon: run `npm install --no-save @fugood/whisper.node` ' +
  'in the folder relaypay runs from, restart the daemon, then download again'

export async function runModelsDownload(name: string, opts: ModelsCommandOptions): Promise<void> {
  const api = await daemonApi(opts)
  const { baseUrl, headers } = api
  // Asked first: without the engine the daemon refuses every download, and a bar would only draw 0% before that.
  const list = await request(api, 'GET', '/models')
  if (list.status === 200 && list.body.local_engine_installed === false) {
    process.stderr.write(`relaypay: ${engineInstallHint}\n`)
    process.exitCode = 1
    return
  }
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
