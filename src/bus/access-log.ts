// The access log: one JSON line per request a transport received, saying which operation, who called, how it ended
// and how long it took. It never carries a credential, an input or an answer: only the fields below.
import type { Logger } from 'pino'
import type { Transport } from './context.js'

export interface AccessLine {
  /** The dispatcher's transports, and NWC (NIP-47 requests: their line keeps the method name, as clients know it). */
  transport: Transport | 'nwc'
  /** The operation's catalogue name; null when the request named none (an unknown path). */
  operation: string | null
  /** The caller kind authentication settled on; 'none' when it did not get that far or failed. */
  caller: string
  /** 'ok' or the error code. */
  outcome: string
  /** The HTTP status; 'ok' or 'error' on transports without one. */
  status: number | 'ok' | 'error'
  durationMs: number
  requestId: string
}

export type AccessLog = (line: AccessLine) => void

/** Request ids come from callers on some transports: a long one is cut so that it cannot swell the log. */
export const maxRequestIdLength = 64

/** Writes access lines through `log` (its own child, `room: "access"`); undefined when the access log is off. */
export function createAccessLog(log: Logger, enabled: boolean): AccessLog | undefined {
  if (!enabled) return undefined
  const access = log.child({ room: 'access' })
  return line => {
    access.info(
      {
        transport: line.transport,
        operation: line.operation,
        caller: line.caller,
        outcome: line.outcome,
        status: line.status,
        durationMs: Math.round(line.durationMs * 10) / 10,
        requestId: line.requestId.slice(0, maxRequestIdLength),
      },
      'request',
    )
  }
}
