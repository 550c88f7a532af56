// Outgoing money stops while the books are in doubt: the daemon closes this gate when the start-up audit fails
// (upstream's watchdog locks outgoing payments the same way), and it stays closed until a restart audits clean.
import { OperationError } from '../../bus/errors.js'

export interface OutgoingGate {
  /** Refuses every later outgoing payment and transfer with `reason`. */
  close(reason: string): void
  /** Throws `forbidden` with the reason while closed. */
  assertOpen(): void
  closedReason(): string | undefined
}

export function outgoingGate(): OutgoingGate {
  let reason: string | undefined
  return {
    close(why) {
      reason = why
    },
    assertOpen() {
      if (reason !== undefined) throw new OperationError('forbidden', `outgoing payments are locked: ${reason}`)
    },
    closedReason: () => reason,
  }
}
