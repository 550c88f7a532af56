// What a part started early asks of a part started after it. The domain rooms are built before the dispatcher (it
// needs their sealed registry) and before the Nostr transport (it needs the dispatcher), yet BatchUser dispatches and
// the metrics report the relays; and a lost lease must stop a daemon that is still starting. Each is asked late,
// through here, and answered once the part it names exists.
import type { Dispatcher } from '../bus/index.js'
import type { NostrTransport } from '../transports/nostr/index.js'

type RelayLink = ReturnType<NostrTransport['relayStatus']>[number]

export interface LateParts {
  /** The dispatcher; asked only once it exists (the rooms that hold this ask at a call, not at their start). */
  dispatcher(): Dispatcher
  /** The relays the Nostr transport serves on; none until it starts. */
  relayStatus(): RelayLink[]
  /** Stops the daemon once it can stop; nothing before that. */
  stopDaemon(): Promise<void>
  dispatcherBuilt(dispatcher: Dispatcher): void
  transportStarted(relayStatus: () => RelayLink[]): void
  daemonBuilt(stop: () => Promise<void>): void
}

export function lateParts(): LateParts {
  let dispatcher: Dispatcher | undefined
  let relayStatus: () => RelayLink[] = () => []
  let stopDaemon = async () => {}
  return {
    dispatcher: () => {
      if (!dispatcher) throw new Error('the dispatcher was asked for before it was built')
      return dispatcher
    },
    relayStatus: () => relayStatus(),
    stopDaemon: () => stopDaemon(),
    dispatcherBuilt: built => void (dispatcher = built),
    transportStarted: status => void (relayStatus = status),
    daemonBuilt: stop => void (stopDaemon = stop),
  }
}

/**
 * How long a stop may still wait for the calls in flight: [shutdown] grace_seconds in all, counted from the stop's
 * first wait, so the dispatcher's drain and the Nostr transport's answers share one deadline.
 */
export function graceLeft(graceSeconds: () => number): () => number {
  let stopBy: number | undefined
  return () => Math.max(0, (stopBy ??= Date.now() + graceSeconds() * 1000) - Date.now())
}
