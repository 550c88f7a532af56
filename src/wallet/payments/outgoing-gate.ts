// Outgoing money stops while the books are in doubt: the daemon closes this gate when the start-up audit fails
// (upstream's watchdog locks outgoing payments the same way), and it stays closed until a restart audits clean.
// While an audit of a large journal runs in the background, the gate is held: money movements wait for its verdict.
import { OperationError } from '../../bus/index.js'

export interface OutgoingGate {
  /** Refuses every later outgoing payment and transfer with `reason`. */
  close(reason: string): void
  /** Money waits until `verdict` settles, then the gate opens (undefined) or closes with the reason it gives. */
  holdUntil(verdict: Promise<string | undefined>): void
  /** Resolves while open (after a pending verdict, if any); rejects with `forbidden` and the reason while closed. */
  whenOpen(): Promise<void>
  closedReason(): string | undefined
}

export function outgoingGate(): OutgoingGate {
  let reason: string | undefined
  let pending: Promise<unknown> | undefined
  const close = (why: string) => {
    reason = why
  }
  return {
    close,
    holdUntil(verdict) {
      const held: Promise<unknown> = verdict.then(
        why => {
          if (why !== undefined) close(why)
        },
        (err: unknown) => close(`the ledger audit could not run: ${(err as Error).message}`),
      ).finally(() => {
        if (pending === held) pending = undefined
      })
      pending = held
    },
    async whenOpen() {
      if (pending) await pending
      if (reason !== undefined) throw new OperationError('forbidden', `outgoing payments are locked: ${reason}`)
    },
    closedReason: () => reason,
  }
}
