// The most recent failed calls with their reasons (GetFailedCalls), in memory only. The usage records say how many
// calls of an operation failed in a minute, in upstream's wire format, which has no field for why; this ring keeps
// the why for the latest failures so an operator does not have to search the daemon's log for it.
import type { CallOutcome, OutputOf } from '../bus/index.js'
import { unixSeconds } from '../units/index.js'
import { appOf } from './usage.js'

/**
 * How many failures are kept. An operator looks at a bad spell soon after it, one minute of the console's chart at a
 * time; a thousand covers a spell of a thousand failures, and at a few hundred characters an entry the ring stays
 * under a megabyte however callers fail. A caller that fails on purpose can push older failures out, never make the
 * ring grow. Not a setting: past it only the reasons are lost, the counts stay in the usage records. GetFailedCalls'
 * summary in the catalogue names this number.
 */
export const defaultFailuresKept = 1000
/** A message is cut to this many characters: enough to say why, and bounded when a reason echoes what a caller sent. */
export const maxFailureMessageChars = 300
/** Operation names and codes are the daemon's own and short; cut all the same, so no field is unbounded. */
const maxNameChars = 100

/**
 * One failure as GetFailedCalls answers it (its catalogue message): when the call finished in unix seconds, the
 * operation, the caller's app as usage records file it (`_root` for callers without one), transport, code, message.
 */
export type FailedCall = OutputOf<'GetFailedCalls'>['failures'][number]

export interface FailedCallsQuery {
  /** Unix seconds, inclusive. */
  since?: number
  /** Unix seconds, exclusive. */
  until?: number
  limit: number
}

export interface FailedCallsRing {
  /** Keeps a failed outcome; a success is ignored. */
  record(outcome: CallOutcome, nowMs: number): void
  /** The kept failures in the window, newest first, at most `limit`. */
  list(query: FailedCallsQuery): FailedCall[]
  /** How many failures the ring keeps at most. */
  readonly capacity: number
  reset(): void
}

export function createFailedCallsRing(capacity = defaultFailuresKept): FailedCallsRing {
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`failures kept must be a positive integer, not ${capacity}`)
  const slots: (FailedCall | undefined)[] = new Array(capacity)
  /** Where the next failure goes; the slot before it holds the newest. */
  let next = 0
  let count = 0
  return {
    capacity,
    record(outcome, nowMs) {
      if (outcome.ok) return
      slots[next] = {
        at_unix: unixSeconds(nowMs),
        operation: cut(outcome.op, maxNameChars),
        app: appOf(outcome.caller),
        transport: outcome.transport,
        code: cut(outcome.errorCode ?? 'internal', maxNameChars),
        message: cut(outcome.errorMessage ?? '', maxFailureMessageChars),
      }
      next = (next + 1) % capacity
      count = Math.min(count + 1, capacity)
    },
    list({ since, until, limit }) {
      const found: FailedCall[] = []
      // Newest first: walk back from the last slot written. A clock that stepped back leaves the ring in arrival
      // order, which is the order the caller saw the failures in.
      for (let i = 1; i <= count && found.length < limit; i++) {
        const failure = slots[(next - i + capacity) % capacity]!
        if (since !== undefined && failure.at_unix < since) continue
        if (until !== undefined && failure.at_unix >= until) continue
        found.push(failure)
      }
      return found
    },
    reset() {
      slots.fill(undefined)
      next = 0
      count = 0
    },
  }
}

/** Cuts at a code point, never inside a surrogate pair, and says it was cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max - 1
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}
