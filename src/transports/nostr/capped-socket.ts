// The WebSocket the daemon's relay links use: `ws`, with every message above a size cap dropped before nostr-tools
// decodes it. An external relay may store and deliver events of any size (ours refuses frames over 256 KiB, others
// may not), and every delivered message would otherwise be turned into a string, JSON-parsed, signature-checked and
// decrypted. ws hands each complete message to `emit('message', data, isBinary)` as bytes, before the string
// conversion its `onmessage` wrapper does for nostr-tools, so the size is known there at no cost.
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
