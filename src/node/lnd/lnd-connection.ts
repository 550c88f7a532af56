// Reaching LND: its socket, TLS certificate and macaroon (from [node] keys or the upstream env names), the gRPC
// clients of the `lightning` package, and the start check. At start relaypay either gets a usable, unlocked LND on
// the configured network, or refuses with one line saying what is wrong; with wait_for_node it waits for LND
// to come up (or be unlocked), retrying with backoff.
import fs from 'node:fs'
import type { Logger } from 'pino'
import { authenticatedLndGrpc, type AuthenticatedLnd } from 'lightning'
import type { BitcoinNetwork, LndConnectionConfig, Timers } from '../lightning-node.js'
import { describeLndFailure, isLocked, isMacaroonRefused, isStarting, isUnreachable } from './lnd-errors.js'
import { backoffDelayMs } from './reconnect-backoff.js'
import { grpcChannel, sameCredentials, type GrpcChannel, type GrpcCredentials } from './grpc-channel.js'
import { getInfo, networkOf, type LndInfo } from './get-info.js'

export { defaultLndSocket, resolveLndConnection } from './lnd-settings.js'

/**
 * The `lightning` package's gRPC clients for one LND, our own channel for the payment path and GetInfo
 * (grpc-channel.ts), and a way to let go of both.
 */
export interface LndClient {
  /** Built on first use (~0.7 s of parsing LND's .proto files), so not on the start's path (get-info.ts). */
  readonly lnd: AuthenticatedLnd
  readonly rpc: GrpcChannel
  readonly socket: string
  close(): void
}

/** Why a start attempt failed; `retryable` failures are waited out when wait_for_node is on. */
class StartFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** What to do when not waiting, if more than "wait for it". */
    readonly hint?: string,
  ) {
    super(message)
  }
}

function readFile(what: string, file: string, setting: string): Buffer {
  try {
    return fs.readFileSync(file)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable'
    // LND writes its certificate and macaroons when it first starts: a missing file is worth waiting for. But a
    // missing file is more often a mistyped path, which waiting would not mend: that is said first.
    const hint = code === 'ENOENT' ? `check [node] ${setting}, or, if LND has not written it yet, set [node] wait_for_node = true` : undefined
    throw new StartFailure(`cannot read LND's ${what} ${file}: ${code}`, code === 'ENOENT', hint)
  }
}

/**
 * LND's certificate and macaroon, read again whenever a connection to LND is opened: an operator who deletes them
 * and restarts LND (a regenerated certificate, rotated macaroons) gets new files at the same paths, and relaypay
 * takes them up without a restart of its own. A file that cannot be read then (LND writing it) keeps the last one
 * read. `generation` counts the changes, so that clients built from older files are built again.
 */
function credentialFiles(connection: LndConnectionConfig) {
  const readBoth = (): GrpcCredentials => {
    const macaroonHex = readFile('macaroon', connection.macaroonPath, 'lnd_macaroon_path').toString('hex')
    const cert = connection.certPath === undefined ? undefined : readFile('TLS certificate', connection.certPath, 'lnd_cert_path')
    return { macaroonHex, ...(cert ? { cert } : {}) }
  }
  let last = readBoth()
  let generation = 0
  return {
    get generation() {
      return generation
    },
    last: () => last,
    read(): GrpcCredentials {
      let now: GrpcCredentials
      try {
        now = readBoth()
      } catch {
        return last
      }
      if (!sameCredentials(now, last)) {
        last = now
        generation++
      }
      return last
    },
  }
}

/** Opens our gRPC channel; nothing is sent until the first call. The `lightning` clients come on first use. */
function openLndClient(connection: LndConnectionConfig): LndClient {
  const files = credentialFiles(connection)
  const rpc = grpcChannel({ socket: connection.socket, credentials: () => files.read() })
  let built: { clients: AuthenticatedLnd; generation: number } | undefined
  const closeBuilt = () => {
    for (const service of Object.values(built?.clients ?? {}) as { close?: () => void }[]) service.close?.()
  }
  // Built from the files our channel read last: a connection it opened with new ones builds these again.
  const clients = () => {
    if (built?.generation !== files.generation) {
      closeBuilt()
      const { macaroonHex: macaroon, cert } = files.last()
      built = { clients: authenticatedLndGrpc({ socket: connection.socket, macaroon, ...(cert ? { cert: cert.toString('base64') } : {}) }).lnd, generation: files.generation }
    }
    return built.clients
  }
  // What the parts hold from the start: the library reads its clients off it (lnd.default, lnd.router, …), and the
  // first such read builds them. The certificate and macaroon have carried GetInfo on our channel by then.
  const lnd = new Proxy({} as AuthenticatedLnd, {
    get: (_target, key) => Reflect.get(clients(), key),
    has: (_target, key) => Reflect.has(clients(), key),
  })
  return {
    lnd,
    rpc,
    socket: connection.socket,
    close() {
      rpc.close()
      closeBuilt()
    },
  }
}

async function attemptStart(connection: LndConnectionConfig, network: BitcoinNetwork) {
  const client = openLndClient(connection)
  const at = `LND at ${connection.socket}`
  let info: LndInfo
  try {
    info = await getInfo(client.rpc)
  } catch (err) {
    client.close()
    const failure = describeLndFailure(err)
    // grpc-js appends an empty "Resolution note:" to connection failures.
    const said = (failure.details ?? 'no connection could be established').replace(/\.? Resolution note:\s*$/, '')
    if (isLocked(failure)) throw new StartFailure(`${at} is locked: unlock its wallet (lncli unlock)`, true)
    if (/certificate|ssl|tls/i.test(said)) {
      throw new StartFailure(`${at} failed the TLS check: ${said} (is ${connection.certPath ?? 'no cert path'} LND's tls.cert?)`, false)
    }
    if (isUnreachable(failure)) throw new StartFailure(`LND is unreachable at ${connection.socket}: ${said}`, true)
    if (isMacaroonRefused(failure)) {
      throw new StartFailure(`${at} refused the macaroon ${connection.macaroonPath}: ${said}`, false)
    }
    if (isStarting(failure)) throw new StartFailure(`${at} is starting up: ${said}`, true)
    throw new StartFailure(`${at} did not answer GetInfo: ${said}`, true)
  }
  const actual = networkOf(info)
  if (actual !== network) {
    client.close()
    throw new StartFailure(`${at} runs on ${actual ?? 'a chain relaypay does not serve'}, but [node] network is ${network}`, false)
  }
  return { client, info }
}

export interface ConnectOptions {
  connection: LndConnectionConfig
  network: BitcoinNetwork
  waitForNode: boolean
  timers: Timers
  log?: Logger
}

/**
 * A connected LND and what it said about itself. Refuses with an Error of one line when LND cannot be used;
 * with `waitForNode`, unreachable, locked and not-yet-written-files failures are logged and retried instead.
 */
export async function connectLnd(opts: ConnectOptions): Promise<{ client: LndClient; info: LndInfo }> {
  for (let failures = 1; ; failures++) {
    try {
      return await attemptStart(opts.connection, opts.network)
    } catch (err) {
      if (!(err instanceof StartFailure)) throw err
      if (!err.retryable) throw new Error(err.message)
      if (!opts.waitForNode) throw new Error(`${err.message}; ${err.hint ?? 'set [node] wait_for_node = true to wait for it'}`)
      const delayMs = backoffDelayMs(failures)
      opts.log?.warn({ attempt: failures, retryInMs: delayMs }, `waiting for LND: ${err.message}`)
      await new Promise<void>(resolve => opts.timers.after(delayMs, resolve))
    }
  }
}
