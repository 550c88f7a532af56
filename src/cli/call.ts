// `relaypay call <Operation> [json]`: any catalogue operation over HTTP, the way a client would call it; with
// `--relay`, any operation served over the relay, as the operator's relay key.
import fs from 'node:fs'
import path from 'node:path'
import { catalogue, type CatalogueEntry } from '../../schema/catalogue.js'
import { commandConfig, daemonEndpoint } from './command-config.js'
import { nwcRequestKind } from '../nostr-kinds/index.js'

export interface CallOptions {
  url?: string
  token?: string
  apiKey?: string
  dataDir?: string
  /** The config file `start` reads (default: <data dir>/relaypay.toml if present). */
  config?: string
  /** Call over the relay (kind 21000) instead of HTTP. */
  relay?: boolean
  /** Hex secret key to call with over the relay (default: <data-dir>/operator.key). */
  key?: string
  /** Seconds to wait for a relay reply. */
  timeout?: number
}

export async function runCall(operation: string, json: string, opts: CallOptions): Promise<void> {
  if (opts.relay) return runRelayCall(operation, json, opts)
  const entry = await findEntry(operation)
  refuseCodecOnly(entry)
  if (!entry.http) die(`${entry.name} has no HTTP route`)
  const input = parseInput(json)
  const config = await commandConfig(opts)
  const daemon = await daemonEndpoint(config)
  const baseUrl = opts.url ?? daemon.url
  const token = opts.token ?? daemon.adminToken
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

/** The operator's relay secret key (64 hex, 0600), written by the first `relaypay call --relay` that enrolls. */
export const operatorKeyFile = 'operator.key'
const defaultRelayTimeoutSeconds = 30

/**
 * Over the relay: the request is signed with `--key` or <data-dir>/operator.key. With neither, and while the daemon
 * still offers enrollment (<data-dir>/admin.enroll), a key is generated into operator.key and enrolled as the admin
 * with EnrollAdminToken first. The app key and relays come from <data-dir>/app.nprofile.
 */
async function runRelayCall(operation: string, json: string, opts: CallOptions): Promise<void> {
  const { callOverRelay } = await import('../transports/nostr-client/index.js')
  const { decode } = await import('nostr-tools/nip19')
  const { generateSecretKey } = await import('nostr-tools/pure')
  const { bytesToHex, hexToBytes } = await import('@noble/hashes/utils.js')
  const entry = await findEntry(operation)
  refuseCodecOnly(entry)
  if (!entry.nostr) die(`${entry.name} is not served over the relay (call it over HTTP)`)
  const input = parseInput(json)
  if (Array.isArray(input)) die('the input must be a JSON object')
  const dataDir = (await commandConfig(opts)).data_dir
  const profileText = readText(path.join(dataDir, 'app.nprofile'))
  if (!profileText) die(`no app.nprofile in ${dataDir}: start the daemon first`)
  const profile = decode(profileText)
  if (profile.type !== 'nprofile' || !profile.data.relays?.length) die('app.nprofile does not name a relay')
  const call = (secretKey: Uint8Array, rpcName: string, body: Record<string, unknown>) =>
    callOverRelay({
      relays: profile.data.relays!,
      appPubkey: profile.data.pubkey,
      secretKey,
      rpcName,
      body,
      timeoutMs: (opts.timeout ?? defaultRelayTimeoutSeconds) * 1000,
    }).catch((err: Error) => die(`over the relay: ${err.message}`))

  const keyPath = path.join(dataDir, operatorKeyFile)
  let keyHex = opts.key ?? readText(keyPath)
  if (!keyHex) {
    const enrollToken = readText(path.join(dataDir, 'admin.enroll'))
    if (!enrollToken) die(`no operator key: pass --key <hex>, or keep ${keyPath} from the enrollment`)
    const fresh = generateSecretKey()
    const enrolled = await call(fresh, 'EnrollAdminToken', { admin_token: enrollToken })
    if (enrolled.status !== 'OK') die(`enrollment failed: ${String(enrolled.reason)}`)
    fs.writeFileSync(keyPath, bytesToHex(fresh) + '\n', { mode: 0o600 })
    process.stderr.write(`relaypay: enrolled a new operator key, kept in ${keyPath}\n`)
    keyHex = bytesToHex(fresh)
  }
  if (!/^[0-9a-f]{64}$/i.test(keyHex)) die('the operator key must be 64 hex characters')
  const reply = await call(hexToBytes(keyHex.toLowerCase()), entry.name, input)
  process.stdout.write(JSON.stringify(reply, null, 2) + '\n')
  process.exitCode = reply.status === 'ERROR' ? 1 : 0
}

async function findEntry(operation: string): Promise<CatalogueEntry> {
  const entry = catalogue.find(
    e => e.name === operation || (e as CatalogueEntry).aliases?.some(alias => alias.name === operation),
  ) as CatalogueEntry | undefined
  if (entry) return entry
  // The bus only on this path: a call that names its operation right does not load it.
  const { likelyMeant } = await import('../bus/index.js')
  const names = catalogue.flatMap(e => [e.name, ...((e as CatalogueEntry).aliases ?? []).flatMap(alias => (alias.name ? [alias.name] : []))])
  const meant = names.find(name => name.toLowerCase() === operation.toLowerCase()) ?? likelyMeant(operation, names)
  die(`unknown operation ${operation}${meant ? `: did you mean ${meant}?` : ''} (see docs/operations.md)`)
}

function parseInput(json: string): Record<string, unknown> {
  let input: unknown
  try {
    input = JSON.parse(json)
  } catch (err) {
    die(`the input is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof input !== 'object' || input === null) die('the input must be a JSON object')
  return input as Record<string, unknown>
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

function die(message: string): never {
  process.stderr.write(`relaypay: ${message}\n`)
  process.exit(2)
}

/** An operation another Nostr kind carries (a NIP-47 method) needs that protocol's client: say so plainly. */
function refuseCodecOnly(entry: { name: string }): void {
  const codec = (entry as { nostrCodec?: { kind: number; request: string } }).nostrCodec
  if (codec) {
    const client = codec.kind === nwcRequestKind ? 'a Nostr Wallet Connect client and a connection URI (CreateNwcConnection)' : 'a CLINK client and a noffer / ndebit / nmanage pointer'
    die(`${entry.name} is the Nostr kind ${codec.kind} request "${codec.request}": send it with ${client}`)
  }
}
