// The WebSocket the daemon's relay links use: `ws`, with every message above a size cap dropped before nostr-tools
// decodes it. An external relay may store and deliver events of any size (ours refuses frames over 256 KiB, others
// may not), and every delivered message would otherwise be turned into a string, JSON-parsed, signature-checked and
// decrypted. ws hands each complete message to `emit('message', data, isBinary)` as bytes, before the string
// conversion its `onmessage` wrapper does for nostr-tools, so the size is known there at no cost.
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { CredentialedWebSocket } from '../../callbacks/index.js'

/** The largest request we accept by default: the embedded relay's own message limit (src/relay/limits.ts). */
export const defaultMaxEventBytes = 256 * 1024

type RawData = Buffer | ArrayBuffer | Buffer[]

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0)
  return data.byteLength
}

/**
 * A WebSocket class for nostr-tools' `websocketImplementation` that drops messages over `maxBytes` (the whole relay
 * message, `["EVENT", <subscription>, <event>]`, a few dozen bytes more than the event) and reports each drop.
 */
export function cappedWebSocket(maxBytes: number, onDropped: (bytes: number) => void): typeof globalThis.WebSocket {
  // Credentialed: to the embedded relay, the daemon's links show its secret (callbacks/relay-credential.ts).
  class CappedWebSocket extends CredentialedWebSocket {
    /** The connection's TCP socket, from the upgrade response (ws's own is not public). */
    private tcp: Socket | undefined
    private corked = false
    constructor(...args: ConstructorParameters<typeof CredentialedWebSocket>) {
      super(...args)
      this.once('upgrade', (response: IncomingMessage) => (this.tcp = response.socket))
    }

    // Replies leave in batches (the signature thread signs a turn's worth at once). ws writes every frame with a
    // system call of its own; held until the end of this turn, a batch leaves in one write and the relay reads it
    // as one chunk.
    override send(data: Parameters<CredentialedWebSocket['send']>[0], ...rest: unknown[]): void {
      const tcp = this.tcp
      if (tcp && !this.corked && !tcp.destroyed) {
        this.corked = true
        tcp.cork()
        process.nextTick(() => {
          this.corked = false
          tcp.uncork()
        })
      }
      ;(super.send as (data: unknown, ...rest: unknown[]) => void)(data, ...rest)
    }

    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'message') {
        const bytes = byteLength(args[0] as RawData)
        if (bytes > maxBytes) {
          onDropped(bytes)
          return false
        }
      }
      return super.emit(event, ...args)
    }
  }
  return CappedWebSocket as unknown as typeof globalThis.WebSocket
}
