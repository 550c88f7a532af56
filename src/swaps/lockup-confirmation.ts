// Waiting for a transaction swap's lockup to confirm, as our own node sees the chain. A provider's
// `transaction.mempool` or `transaction.confirmed` is only its word: an unconfirmed lockup can be double-spent
// after our claim has revealed the preimage and settled the hold invoice we paid. One wait per swap; a wait the
// node drops (LND restarting, a broken stream) is asked again after a backoff, and a restart arms it again from
// the stored lockup. The node's answer is checked to be the lockup asked for before anyone hears of it.
import type { Logger } from 'pino'
import { isOperationError } from '../bus/index.js'
import type { ChainConfirmation, ConfirmationRequest, LightningNode, Timers } from '../node/index.js'

const firstRetryMs = 1_000
const maxRetryMs = 60_000

interface Wait {
  txid: string
  controller: AbortController
  cancelRetry?: () => void
}

export function lockupConfirmations(deps: { node: LightningNode; timers: Timers; log: Logger }) {
  const waits = new Map<string, Wait>()

  const stop = (swapId: string) => {
    const wait = waits.get(swapId)
    if (!wait) return
    waits.delete(swapId)
    wait.cancelRetry?.()
    wait.controller.abort(new Error('no longer waited for'))
  }

  return {
    /**
     * Calls `onConfirmed` once `request.txid` has a confirmation that `isLockup` accepts (the raw transaction the
     * node reports is the lockup). Waiting again for the same lockup is a no-op; another lockup replaces the wait.
     */
    wait(
      swapId: string,
      request: ConfirmationRequest,
      isLockup: (rawTx: string) => boolean,
      onConfirmed: (confirmation: ChainConfirmation) => Promise<void>,
    ): void {
      if (waits.get(swapId)?.txid === request.txid) return
      stop(swapId)
      const wait: Wait = { txid: request.txid, controller: new AbortController() }
      waits.set(swapId, wait)
      let delayMs = firstRetryMs
      const current = () => waits.get(swapId) === wait && !wait.controller.signal.aborted
      const retry = (reason: string) => {
        if (!current()) return
        deps.log.warn({ swap: swapId, txid: request.txid, reason, retryInMs: delayMs }, 'cannot watch a swap lockup for its confirmation yet')
        wait.cancelRetry = deps.timers.after(delayMs, attempt)
        delayMs = Math.min(delayMs * 2, maxRetryMs)
      }
      function attempt() {
        wait.cancelRetry = undefined
        if (!current()) return
        deps.node.waitForConfirmation(request, wait.controller.signal).then(
          confirmation => {
            if (!current()) return
            if (!isLockup(confirmation.rawTx)) return retry('the node reported a confirmation of another transaction')
            waits.delete(swapId)
            onConfirmed(confirmation).catch(err => deps.log.error({ err, swap: swapId }, 'a confirmed swap lockup was not handled'))
          },
          err => {
            if (!current()) return
            retry(isOperationError(err) ? `${err.code}: ${err.message}` : (err as Error).message)
          },
        )
      }
      deps.log.info({ swap: swapId, txid: request.txid }, 'waiting for our node to see the swap lockup confirmed')
      attempt()
    },

    isWaiting: (swapId: string) => waits.has(swapId),
    stop,
    stopAll(): void {
      for (const id of [...waits.keys()]) stop(id)
    },
  }
}

export type LockupConfirmations = ReturnType<typeof lockupConfirmations>
