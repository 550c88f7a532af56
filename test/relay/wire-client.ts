// A bare NIP-01 client over `ws` for the tests that must see exactly what the relay sends: nostr-tools' Relay
// re-checks every received event against the subscription's filters and drops misses, which would hide a relay
// that sends too much.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import type { NostrEvent } from 'nostr-tools/pure'
import { startRelay, type RelayLimits, type RunningRelay } from '../../src/relay/index.js'

export type RelayMessage = [string, ...unknown[]]

export interface WireClient {
  send(message: unknown): void
  sendRaw(text: string): void
  /** Sends a REQ and resolves with the stored events once EOSE arrives; rejects with the reason of a CLOSED. */
  query(subId: string, ...filters: object[]): Promise<NostrEvent[]>
  /** Resolves with the next message (already received or yet to come) that satisfies `match`. */
  next(match: (message: RelayMessage) => boolean, timeoutMs?: number): Promise<RelayMessage>
  /** Publishes and resolves with the relay's OK: [accepted, reason]. */
  publish(event: object & { id: string }): Promise<[boolean, string]>
  closed: Promise<{ code: number }>
  close(): void
}

/** `localAddress`: the source address (another 127.x address stands for another client). */
export async function connectWire(url: string, opts: { localAddress?: string } = {}): Promise<WireClient> {
  const socket = new WebSocket(url, opts.localAddress ? { localAddress: opts.localAddress } : {})
  const inbox: RelayMessage[] = []
  const waiters: { match: (m: RelayMessage) => boolean; resolve: (m: RelayMessage) => void }[] = []
  socket.on('message', data => {
    const message = JSON.parse(data.toString()) as RelayMessage
    const waiter = waiters.findIndex(w => w.match(message))
    if (waiter >= 0) waiters.splice(waiter, 1)[0].resolve(message)
    else inbox.push(message)
  })
  const closed = new Promise<{ code: number }>(resolve => socket.on('close', code => resolve({ code })))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })

  function next(match: (message: RelayMessage) => boolean, timeoutMs = 3000): Promise<RelayMessage> {
    const queued = inbox.findIndex(match)
    if (queued >= 0) return Promise.resolve(inbox.splice(queued, 1)[0])
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1)
        reject(new Error('no matching relay message in time'))
      }, timeoutMs)
      const waiter = {
        match,
        resolve: (m: RelayMessage) => {
          clearTimeout(timer)
          resolve(m)
        },
      }
      waiters.push(waiter)
    })
  }

  const send = (message: unknown) => socket.send(JSON.stringify(message))

  return {
    send,
    sendRaw: text => socket.send(text),
    next,
    async query(subId, ...filters) {
      send(['REQ', subId, ...filters])
      const events: NostrEvent[] = []
      for (;;) {
        const m = await next(m => (m[0] === 'EVENT' || m[0] === 'EOSE' || m[0] === 'CLOSED') && m[1] === subId)
        if (m[0] === 'EOSE') return events
        if (m[0] === 'CLOSED') throw new Error(String(m[2]))
        events.push(m[2] as NostrEvent)
      }
    },
    async publish(event) {
      send(['EVENT', event])
      const ok = await next(m => m[0] === 'OK' && m[1] === event.id)
      return [ok[2] as boolean, ok[3] as string]
    },
    closed,
    close: () => socket.close(),
  }
}

/** A standalone relay on a fresh data dir, with these limits and clock, and a wire client on it, for `run`. */
export async function withRelay(
  limits: Partial<RelayLimits>,
  clock: { now(): number },
  run: (relay: RunningRelay, wire: WireClient) => Promise<void>,
): Promise<void> {
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-')), clock, limits })
  const wire = await connectWire(relay.url)
  try {
    await run(relay, wire)
  } finally {
    wire.close()
    await relay.close()
  }
}
