// `relaypay call <Operation> [json]`: any catalogue operation over HTTP, the way a client would call it.
import fs from 'node:fs'
import path from 'node:path'
import { catalogue, type CatalogueEntry } from '../../schema/catalogue.js'
import { readSecret } from '../config/index.js'
import { adminTokenFile, daemonInfoFile } from '../daemon.js'

export interface CallOptions {
  url?: string
  token?: string
  apiKey?: string
  dataDir: string
}

export async function runCall(operation: string, json: string, opts: CallOptions): Promise<void> {
  const entry = catalogue.find(
    e => e.name === operation || (e as CatalogueEntry).aliases?.some(alias => alias.name === operation),
  ) as CatalogueEntry | undefined
  if (!entry) die(`unknown operation ${operation} (see docs/operations.md)`)
  if (!entry.http) die(`${entry.name} has no HTTP route`)
  let input: unknown
  try {
    input = JSON.parse(json)
  } catch (err) {
    die(`the input is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof input !== 'object' || input === null) die('the input must be a JSON object')
  const baseUrl = opts.url ?? runningDaemonUrl(opts.dataDir)
  const token = opts.token ?? readSecret(path.join(path.resolve(opts.dataDir), adminTokenFile))
  const request = buildRequest(entry, { ...(input as Record<string, unknown>) }, { token, apiKey: opts.apiKey })
  let response: Response
  try {
    response = await fetch(new URL(request.path, baseUrl), request.init)
  } catch (err) {
    die(`cannot reach ${baseUrl}: ${(err as Error).message}`)
  }
  const text = await response.text()
  let pretty = text
  let failed = !response.ok
  try {
    const body = JSON.parse(text)
    pretty = JSON.stringify(body, null, 2)
    if (body && body.status === 'ERROR') failed = true
  } catch {
    // not JSON (CSV, HTML): print as is
  }
  process.stdout.write(pretty.endsWith('\n') ? pretty : pretty + '\n')
  process.exitCode = failed ? 1 : 0
}

export function buildRequest(
  entry: CatalogueEntry,
  input: Record<string, unknown>,
  creds: { token?: string; apiKey?: string },
): { path: string; init: RequestInit } {
  const http = entry.http!
  let path = http.path.replace(/:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\}/g, (_, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!
    const value = input[name]
    if (value === undefined) die(`${entry.name} needs "${name}" in the input (a path parameter)`)
    delete input[name]
    return encodeURIComponent(String(value))
  })
  const query = new URLSearchParams()
  for (const name of http.query ?? []) {
    const value = input[name]
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item))
    delete input[name]
  }
  if ([...query].length > 0) path += `?${query}`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (creds.apiKey) headers['x-api-key'] = creds.apiKey
  if (creds.token) headers.authorization = entry.dialect === 'pub' ? creds.token : `Bearer ${creds.token}`
  const bodyMode = http.body ?? (http.method === 'GET' ? 'none' : 'fields')
  const body =
    bodyMode === 'none' ? undefined : JSON.stringify(bodyMode === 'whole' ? input[http.bodyField ?? 'body'] : input)
  return { path, init: { method: http.method, headers, body } }
}

function runningDaemonUrl(dataDir: string): string {
  const file = path.join(path.resolve(dataDir), daemonInfoFile)
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { url: string }).url
  } catch {
    return 'http://127.0.0.1:1776'
  }
}

function die(message: string): never {
  process.stderr.write(`relaypay: ${message}\n`)
  process.exit(2)
}
