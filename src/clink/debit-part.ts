// The debits part of the CLINK room (kind 21002, reference/pub-protocol.md §5.3): requests from keys the user
// granted, banned or has not decided about yet, the payments made for them under the grants' rules, and the user
// operations that decide and steer them.
import type { ClinkSender } from './wire.js'
import type { ClinkDeps, ClinkPart } from './room.js'
import { debitStore } from './debit-store.js'
import { debitPayer } from './debit-payer.js'
import { debitRequests } from './debit-requests.js'
import { debitHandlers } from './handlers/debits.js'
import { answerParked } from './debit-answers.js'
import { debitExpiry, defaultDebitRequestLifetimeMs } from './debit-expiry.js'

export function createDebits(deps: ClinkDeps, outbox: () => ClinkSender | undefined): ClinkPart {
  const store = debitStore(deps.db)
  const log = deps.log.child({ part: 'debits' })
  const payer = debitPayer({ store, wallet: deps.wallet, events$: deps.events$, outbox, log })
  payer.start()
  const expiry = debitExpiry({
    store,
    outbox,
    answerParked: (box, parked, payload) => answerParked(box, parked, payload, log),
    clock: deps.clock,
    lifetimeMs: deps.debitRequestLifetimeMs ?? defaultDebitRequestLifetimeMs,
    log,
  })
  expiry.start()
  const requests = debitRequests({ store, payer, wallet: deps.wallet, node: deps.node, emit: deps.emit, clock: deps.clock, lifetimeMs: expiry.lifetimeMs, log })
  return {
    handlers: debitHandlers({ store, payer, outbox, expiry, clock: deps.clock, log }),
    handle: request => requests.handle(request),
    resume: request => {
      const resumed = payer.resume(request.id)
      return resumed === undefined || resumed === 'later' ? resumed : { payload: resumed }
    },
    ready: () => {
      payer.ready()
      expiry.sweep()
    },
    stop: () => {
      expiry.stop()
      payer.stop()
    },
  }
}
