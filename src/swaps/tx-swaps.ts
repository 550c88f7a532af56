// Transaction swaps (Lightning → on-chain, Boltz "reverse"), users' and the operator's (docs/pub-protocol.md, "Swaps").
// Quote: our preimage and key are made and stored with the provider's swap, whose tree and lockup address are
// checked first. Pay: the provider's hold invoice is paid — a user's through the wallet's normal payment path
// (balance − invoice − service fee), the operator's by the node — and once the provider's lockup pays the swap
// address the agreed amount and our own node has seen it confirmed (at once only for a provider trusted with
// zero_conf), we claim the coins to the caller's address (tx-claim.ts). The claim reveals the preimage, which
// settles the hold invoice: revealed for an unconfirmed lockup, it would let the provider double-spend the lockup
// and keep the payment. A lockup that does not confirm before the swap's timeout is never claimed, and the
// payment fails back. Every step is stored before the next, so a restart resumes a paid swap where it stopped.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { OperationError, isOperationError } from '../bus/index.js'
import { providerFor, quoteAll, type Provider, type SwapDeskDeps, type SwapWallet } from './providers.js'
import { lockupConfirmations } from './lockup-confirmation.js'
import { swapFollowers, type SwapUpdate } from './provider-updates.js'
import { findLockupOutput, outputScriptOf, parseTree, type SwapKeys } from './swap-scripts.js'
import type { TxSwapRow } from './swap-store.js'
import { broadcastClaim, buildClaim } from './tx-claim.js'
import { quoteOf, quoteTxSwap, type TxSwapQuote } from './tx-quotes.js'

export type { TxSwapQuote } from './tx-quotes.js'

/** How long the node may try to pay a hold invoice before answering (the payment itself goes on). */
const payTimeoutMs = 50_000
const lockedStatuses = new Set(['transaction.mempool', 'transaction.confirmed'])
const failedStatuses = new Set(['invoice.expired', 'swap.expired', 'transaction.failed', 'transaction.refunded'])
/**
 * The preimage is not revealed this close to the swap's timeout: the claim must confirm before the provider's
 * refund path opens at the timeout block.
 */
export const claimMarginBlocks = 3
/** When no paid height is stored (swaps paid before it was), how far below the timeout the lockup may be. */
const fallbackLookbackBlocks = 1008

export interface PaidTxSwap {
  txId: string
  /** The wallet payment of the hold invoice (users), if one was made. */
  paymentSerial?: number
  serviceFeeSats: number
  networkFeeSats: number
}

type Waiter = { resolve(txid: string): void; reject(err: OperationError): void }

export function txSwapDesk(deps: SwapDeskDeps & { wallet: SwapWallet; payWaitMs: number }) {
  const { store, node, network, wallet, log } = deps
  const waiters = new Map<string, Set<Waiter>>()
  const followers = swapFollowers<TxSwapRow>({
    updatesFor: url => providerFor(deps.providers, url).updates,
    onUpdate: (id, update) => onUpdate(id, update),
    log,
    timers: deps.timers,
    what: 'transaction swap',
  })
  const claiming = new Set<string>()
  const confirmations = lockupConfirmations({ node, timers: deps.timers, log })
  const zeroConf = (swap: TxSwapRow) => deps.providers.find(p => p.url === swap.provider_url)?.zeroConf === true

  const settleWaiters = (id: string, outcome: { txid: string } | { error: OperationError }) => {
    for (const waiter of waiters.get(id) ?? []) {
      if ('txid' in outcome) waiter.resolve(outcome.txid)
      else waiter.reject(outcome.error)
    }
    waiters.delete(id)
  }

  const keysOf = (swap: TxSwapRow): SwapKeys => ({
    ourKey: hexToBytes(swap.claim_private_key),
    theirPublicKey: hexToBytes(swap.refund_public_key),
    tree: parseTree(swap.swap_tree),
  })

  const fail = async (swap: TxSwapRow, reason: string) => {
    if (await store.failTxSwap(swap.id, reason, deps.now())) {
      log.warn({ swap: swap.id, reason }, 'transaction swap failed')
      followers.stop(swap.id)
      confirmations.stop(swap.id)
    }
    settleWaiters(swap.id, { error: new OperationError('upstream_failed', `the swap failed: ${reason}`) })
  }

  /**
   * Fails a swap unless a claim is being built (it may have revealed the preimage already: it must be stored and
   * sent, not failed). The swap counts as being claimed while its failure is stored, so no claim starts from a
   * row read before the failure landed.
   */
  const failUnlessClaiming = async (swap: TxSwapRow, reason: string) => {
    if (claiming.has(swap.id)) return
    claiming.add(swap.id)
    try {
      await fail(swap, reason)
    } finally {
      claiming.delete(swap.id)
    }
  }

  /** Back to `quoted`: nothing was sent, so the quote stays usable until it expires. */
  const release = async (swap: TxSwapRow, refusal: OperationError) => {
    followers.stop(swap.id)
    await store.releaseTxSwap(swap.id)
    settleWaiters(swap.id, { error: refusal })
  }
  /** For outcomes learnt outside any caller's request (the node's answer to a payment nobody waits on). */
  const logFailure = (swap: TxSwapRow, what: string) => (err: unknown) => log.error({ err, swap: swap.id }, what)

  /** Why a swap not claimed by its timeout failed: the user is told whether a lockup was seen and why unclaimed. */
  const timeoutReason = (swap: TxSwapRow) =>
    swap.lockup_tx_id && swap.lockup_confirmed_height === null && !zeroConf(swap)
      ? `the provider's lockup ${swap.lockup_tx_id} was not confirmed on our node before block ${swap.timeout_block_height - claimMarginBlocks} ` +
        `(the swap times out at ${swap.timeout_block_height}); the preimage was never revealed, so the Lightning payment fails back`
      : `the swap was not claimed before block ${swap.timeout_block_height - claimMarginBlocks} (it times out at ${swap.timeout_block_height}); ` +
        'the preimage was never revealed, so the Lightning payment fails back'

  /** A lockup the provider reported: checked, stored, then claimed once our node sees it confirmed. */
  async function onLockup(swap: TxSwapRow, provider: Provider, lockupHex: string): Promise<void> {
    const keys = keysOf(swap)
    const lockup = findLockupOutput(lockupHex, keys)
    if (!lockup) return fail(swap, 'the provider reported a lockup transaction that does not pay the swap address')
    if (lockup.amountSats < swap.onchain_amount_sats) {
      // Claiming would reveal the preimage for less than agreed; the hold invoice times out instead.
      return fail(swap, `the provider locked ${lockup.amountSats} sats instead of ${swap.onchain_amount_sats}`)
    }
    if (await store.setTxLockup(swap.id, lockup.txid, lockupHex)) log.info({ swap: swap.id, txid: lockup.txid }, 'transaction swap lockup seen')
    const current = (await store.txSwap(swap.id))!
    if (current.status !== 'paying' || current.claim_tx_hex || current.lockup_tx_id !== lockup.txid) return
    if (provider.zeroConf || current.lockup_confirmed_height !== null) return claimSwap(current, provider)
    awaitConfirmation(current)
  }

  /** Arms (once) the wait for our node to see the stored lockup confirmed, then claims. */
  function awaitConfirmation(swap: TxSwapRow): void {
    const keys = keysOf(swap)
    const lockup = findLockupOutput(swap.lockup_tx_hex!, keys)!
    const heightHint = Math.max(1, swap.paid_height ?? swap.timeout_block_height - fallbackLookbackBlocks)
    confirmations.wait(
      swap.id,
      { txid: lockup.txid, outputScript: bytesToHex(lockup.script), heightHint },
      rawTx => findLockupOutput(rawTx, keys)?.txid === lockup.txid,
      async confirmation => {
        if (await store.setLockupConfirmed(swap.id, lockup.txid, confirmation.blockHeight)) {
          log.info({ swap: swap.id, txid: lockup.txid, height: confirmation.blockHeight }, 'our node saw the swap lockup confirmed')
        }
        const current = await store.txSwap(swap.id)
        if (current?.status !== 'paying' || current.lockup_tx_id !== lockup.txid) return
        await claimSwap(current, providerFor(deps.providers, current.provider_url))
      },
    )
  }

  /**
   * Claims a swap whose stored lockup may be claimed (confirmed on our node, or zero_conf); safe to call again: a
   * stored claim is re-broadcast, never rebuilt.
   */
  async function claimSwap(swap: TxSwapRow, provider: Provider): Promise<void> {
    if (claiming.has(swap.id)) return
    claiming.add(swap.id)
    try {
      let current = (await store.txSwap(swap.id))!
      if (current.status !== 'paying') return
      if (!current.claim_tx_hex) {
        if (!current.lockup_tx_hex) return
        // The guard the whole flow rests on: no preimage for a lockup our node has not seen confirmed.
        if (current.lockup_confirmed_height === null && !provider.zeroConf) return
        const height = await deps.blockHeight()
        if (height >= current.timeout_block_height - claimMarginBlocks) return await fail(current, timeoutReason(current))
        const keys = keysOf(current)
        const lockup = findLockupOutput(current.lockup_tx_hex, keys)!
        const destination = outputScriptOf(current.address!, network)!
        const tx = await buildClaim({ swap: current, keys, lockup, destination, provider, log })
        await store.setClaimTx(current.id, tx.id, tx.hex)
        current = (await store.txSwap(swap.id))!
      }
      await broadcastClaim({ swapId: current.id, hex: current.claim_tx_hex!, provider, node, log })
      if (await store.finishTxSwap(current.id, deps.now())) log.info({ swap: current.id, txid: current.claim_tx_id }, 'transaction swap claimed')
      followers.stop(current.id)
      settleWaiters(current.id, { txid: current.claim_tx_id! })
    } catch (err) {
      // The claim stays stored; the next status update or the next block broadcasts it again.
      log.error({ err, swap: swap.id }, 'could not claim a transaction swap yet')
    } finally {
      claiming.delete(swap.id)
    }
  }

  async function onUpdate(swapId: string, update: SwapUpdate): Promise<void> {
    const swap = await store.txSwap(swapId)
    if (!swap || swap.status !== 'paying') return
    const provider = providerFor(deps.providers, swap.provider_url)
    if (swap.claim_tx_hex) return claimSwap(swap, provider)
    if (lockedStatuses.has(update.status)) {
      // The provider's word on the status is not evidence; its transaction is, once our node sees it confirmed.
      const hex = update.transaction?.hex ?? (await provider.api.reverseTransaction(swap.provider_swap_id)).hex
      if (hex) await onLockup(swap, provider, hex)
    } else if (failedStatuses.has(update.status)) {
      const said = `${update.status}${update.failureReason ? `: ${update.failureReason}` : ''}`
      await failUnlessClaiming(swap, swap.lockup_tx_id ? `${said}; ${timeoutReason(swap)}` : said)
    }
  }

  /** Resolves with the claim's txid, or rejects when the swap fails, or after `payWaitMs`. */
  const waitForClaim = (id: string) =>
    new Promise<string>((resolve, reject) => {
      const cancel = deps.timers.after(deps.payWaitMs, () => {
        waiters.get(id)?.delete(waiter)
        void store
          .txSwap(id)
          .catch(() => undefined)
          .then(swap => {
            const what =
              swap?.lockup_tx_id && swap.lockup_confirmed_height === null
                ? `a confirmation of the provider's lockup ${swap.lockup_tx_id} on our node (usually minutes)`
                : "the provider's lockup"
            reject(new OperationError('upstream_failed', `the swap is paid and waits for ${what}; ListTxSwaps shows when it is claimed`))
          })
      })
      const waiter: Waiter = {
        resolve: txid => (cancel(), resolve(txid)),
        reject: err => (cancel(), reject(err)),
      }
      const set = waiters.get(id) ?? new Set()
      set.add(waiter)
      waiters.set(id, set)
    })

  /** Checks a quote can be paid to `address` and moves it to `paying`; throws OperationError otherwise. */
  async function startPaying(userId: string | null, id: string, address: string, amountSats?: number): Promise<TxSwapRow> {
    const swap = await store.txSwap(id)
    if (!swap || swap.user_id !== userId) {
      throw new OperationError('not_found', 'no transaction swap quote with this swap_operation_id (quotes are removed once they expire)')
    }
    if (swap.status !== 'quoted') throw new OperationError('conflict', `this swap is already ${swap.status}`)
    if (amountSats !== undefined && amountSats !== swap.transaction_amount_sats) {
      throw new OperationError('invalid_input', `amountSats must be the quoted transaction_amount_sats (${swap.transaction_amount_sats})`)
    }
    if (!outputScriptOf(address, network)) throw new OperationError('invalid_input', `invalid address for this network: ${address}`)
    const height = await deps.blockHeight()
    if (height >= swap.timeout_block_height) {
      throw new OperationError('invalid_input', `this swap quote expired at block ${swap.timeout_block_height}; ask for a new quote`)
    }
    const paying = await store.startPaying(id, address, deps.now(), height)
    if (!paying) throw new OperationError('conflict', 'this swap is already being paid')
    followers.follow(paying)
    return paying
  }

  return {
    quote(userId: string | null, amountSats: number): Promise<TxSwapQuote[]> {
      if (!Number.isSafeInteger(amountSats) || amountSats <= 0) {
        throw new OperationError('invalid_input', 'transaction_amount_sats must be a positive integer')
      }
      return quoteAll(deps.providers, p => quoteTxSwap({ ...deps, provider: p, userId, amountSats }), log)
    },

    /** PayAddress with a swap_operation_id: the user's balance pays the hold invoice with the service fee. */
    async payForUser(userId: string, request: { address: string; amountSats: number; swapOperationId: string }): Promise<PaidTxSwap> {
      const swap = await startPaying(userId, request.swapOperationId, request.address, request.amountSats)
      const claimed = waitForClaim(swap.id)
      claimed.catch(() => undefined) // awaited below; a failure before then must not go unhandled
      // The hold invoice's payment answers only once the provider settles it, after our claim: the caller waits for
      // whichever ends first, the payment's answer or the claim's wait (pay_wait_seconds), not for the node's own
      // 50 s. A refusal that comes later is still applied, without a caller.
      const paid: Promise<OperationError | undefined> = wallet.payInvoiceFor(userId, swap.invoice).then(
        () => undefined,
        async err => {
          const payment = await wallet.paymentByHash(swap.payment_hash)
          if (!payment) {
            // Refused before anything was recorded (balance, lock, gate): the quote may be paid again.
            const refusal = isOperationError(err) ? err : new OperationError('upstream_failed', 'the swap invoice could not be paid')
            await release(swap, refusal)
            return refusal
          }
          if (payment.status === 'failed') {
            const refusal = isOperationError(err) ? err : new OperationError('upstream_failed', 'the swap invoice could not be paid')
            await fail(swap, `paying the swap invoice failed: ${refusal.message}`)
            return refusal
          }
          return undefined // in flight: the claim (or its failure) decides, below
        },
      )
      paid.catch(logFailure(swap, 'could not store the outcome of a swap payment'))
      const refusal = await Promise.race([paid, claimed.then(() => undefined, () => undefined)])
      const payment = await wallet.paymentByHash(swap.payment_hash)
      if (payment) await store.setPaymentSerial(swap.id, payment.operationSerial)
      if (refusal) throw refusal
      const txId = await claimed
      return {
        txId,
        ...(payment ? { paymentSerial: payment.operationSerial } : {}),
        serviceFeeSats: swap.service_fee_sats,
        networkFeeSats: swap.chain_fee_sats + swap.swap_fee_sats,
      }
    },

    /** PayAdminTransactionSwap: the node pays the hold invoice from its own channels. */
    async payForOperator(request: { address: string; swapOperationId: string }): Promise<PaidTxSwap> {
      const swap = await startPaying(null, request.swapOperationId, request.address)
      const claimed = waitForClaim(swap.id)
      claimed.catch(() => undefined)
      const maxFeeMsat = wallet.routingFeeLimitSats(swap.invoice_amount_sats) * 1000
      // Not awaited: a hold invoice settles only after our claim, which this call waits for below.
      node
        .pay({ paymentRequest: swap.invoice, maxFeeMsat, timeoutMs: payTimeoutMs })
        .then(outcome => {
          if (outcome.status === 'failed') {
            fail(swap, `the node could not pay the swap invoice: ${outcome.failureReason}`).catch(logFailure(swap, 'could not store a failed swap'))
          }
        })
        .catch(err => {
          if (!isOperationError(err)) {
            log.error({ err, swap: swap.id }, 'the node failed while paying a swap invoice; its outcome is not known yet')
            return
          }
          // The node refused up front and sent nothing: the quote stays usable.
          release(swap, err).catch(logFailure(swap, 'could not release a swap the node refused to pay'))
        })
      const txId = await claimed
      return { txId, serviceFeeSats: 0, networkFeeSats: swap.chain_fee_sats + swap.swap_fee_sats }
    },

    async list(userId: string | null) {
      return Promise.all((await store.txSwapsOf(userId)).map(async swap => {
        const operation = swap.user_id === null ? undefined : await wallet.paymentOperationByHash(swap.payment_hash)
        return {
          quote: quoteOf(swap),
          ...(operation && swap.status !== 'quoted' ? { operation_payment: operation } : {}),
          ...(swap.failure_reason ? { failure_reason: swap.failure_reason } : {}),
          ...(swap.address ? { address_paid: swap.address } : {}),
          ...(swap.claim_tx_id ? { tx_id: swap.claim_tx_id } : {}),
        }
      }))
    },

    /**
     * Follows every paid swap again: the provider's current status continues each where it stopped, and a stored
     * lockup is watched for its confirmation whether or not the provider says anything.
     */
    async resume(): Promise<number> {
      const open = await store.txSwapsInProgress()
      for (const swap of open) {
        try {
          if (swap.lockup_tx_hex && !swap.claim_tx_hex && swap.lockup_confirmed_height === null && !zeroConf(swap)) awaitConfirmation(swap)
          followers.follow(swap)
        } catch (err) {
          log.error({ swap: swap.id, reason: (err as Error).message }, 'cannot resume a transaction swap')
        }
      }
      return open.length
    },

    /**
     * A new block: claims stored but not yet broadcast are sent again (so are claims of confirmed lockups that
     * failed to build), and swaps too close to their timeout to be claimed safely fail (unless a claim is out
     * already: the preimage is revealed, the claim must go through).
     */
    async onBlock(height: number): Promise<void> {
      for (const swap of await store.txSwapsInProgress()) {
        const provider = deps.providers.find(p => p.url === swap.provider_url)
        if (swap.claim_tx_hex || (swap.lockup_confirmed_height !== null && height < swap.timeout_block_height - claimMarginBlocks)) {
          // A stored claim not yet accepted, or a confirmed lockup whose claim failed last time: try again.
          if (provider) await claimSwap(swap, provider)
        } else if (height >= swap.timeout_block_height - claimMarginBlocks) {
          await failUnlessClaiming(swap, timeoutReason(swap))
        }
      }
    },

    stop(): void {
      followers.stopAll()
      confirmations.stopAll()
    },
  }
}


export type TxSwapDesk = ReturnType<typeof txSwapDesk>
