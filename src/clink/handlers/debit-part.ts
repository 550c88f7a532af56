// The debits part of the CLINK room (kind 21002, docs/pub-protocol.md "Debits"): requests from keys the user
// granted, banned or has not decided about yet, the payments made for them under the grants' rules, and the user
// operations that decide and steer them.
import { clinkDebitKind, type ClinkSender } from '../wire.js'
import { requestHandler, type ClinkDeps, type ClinkPart } from '../parts.js'
import { debitStore } from '../debit-store.js'
import { debitLimitStore } from '../debit-limit-store.js'
import { debitPayer } from '../debit-payer.js'
import { debitRequests } from '../debit-requests.js'
import { debitHandlers } from './debits.js'
import { answerParked } from '../debit-answers.js'
import { debitExpiry, defaultDebitRequestLifetimeMs } from '../debit-expiry.js'

/** Resolves once the payments a stopped run was making are adopted (debit-payer.ts `start`). */
export async function createDebits(deps: ClinkDeps, outbox: () => ClinkSender | undefined): Promise<ClinkPart> {
  const store = debitStore(deps.sql)
  const log = deps.log.child({ part: 'debits' })
  const payer = debitPayer({
    store, limitStore: debitLimitStore(), wallet: deps.wallet, events$: deps.events$, outbox, now: () => deps.clock.now(), log,
  })
  await payer.start()
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
    handlers: {
      ...debitHandlers({ store, payer, outbox, expiry, clock: deps.clock, log }),
      ClinkDebitRequest: requestHandler(clinkDebitKind, request => requests.handle(request)),
    },
    resume: async request => {
      const resumed = await payer.resume(request.id)
      return resumed === undefined || resumed === 'later' ? resumed : { payload: resumed }
    },
    ready: async () => {
      await payer.ready()
      await expiry.sweep()
    },
    stop: () => {
      expiry.stop()
      payer.stop()
    },
  }
}
