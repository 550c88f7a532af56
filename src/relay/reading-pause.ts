// A connection's reading, paused while its client is over a budget, and the messages held meanwhile
// (client-session.ts decides when to pause and handles the messages).
import type { WebSocket } from 'ws'

/** Shortest pause of a client over its message budget (ms). */
const minPauseMs = 100

export interface ReadingPause {
  /** A message read from the socket: handled now, or held behind those already held while reading is paused. */
  receive(data: Buffer): void
  /** Stops reading the socket for `ms` (at least minPauseMs); nothing while it is already paused. */
  pause(ms: number): void
  /** Forgets what is held: the session is released and handles nothing more. */
  release(): void
}

export function readingPause(socket: WebSocket, handle: (data: Buffer) => void): ReadingPause {
  let paused = false
  let released = false
  /**
   * Messages ws had already read from the socket when reading paused (one read holds many: a flooder's twenty REQs
   * come in one). Handled one by one when the pause is over, until one pauses reading again; answered at once, each
   * over-cap REQ of a batch was refused and asked again in a loop, and the pause held back nothing.
   */
  const held: Buffer[] = []

  return {
    receive(data) {
      if (paused || held.length > 0) {
        held.push(data)
        return
      }
      handle(data)
    },
    pause(ms) {
      if (paused) return
      paused = true
      socket.pause()
      const wait = Math.max(ms, minPauseMs)
      setTimeout(() => {
        paused = false
        while (held.length > 0 && !paused && !released) handle(held.shift()!)
        if (!paused && socket.readyState === socket.OPEN) socket.resume()
      }, wait).unref()
    },
    release() {
      released = true
      held.length = 0
    },
  }
}
