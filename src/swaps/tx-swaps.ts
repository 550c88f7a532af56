// Transaction swaps (Lightning → on-chain, Boltz "reverse"), for users and the operator (pub-protocol.md §9).
// Quote: our preimage and key are made and stored with the provider's swap, whose tree and lockup address are
// checked first. Pay: the provider's hold invoice is paid — a user's through the wallet's normal payment path
// (balance − invoice − service fee), the operator's by the node — and once the provider locks the coins, we claim
// them to the caller's address: cooperatively (MuSig2 key path), or alone through the script path. The claim
// reveals the preimage, which settles the hold invoice. Every step is stored before the next, so a restart
// resumes a paid swap from the provider's current status.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { OperationError, isOperationError } from '../bus/errors.js'
import { providerFor, quoteAll, QuoteRefused, swapSecretKey, unixSecondsOrZero, type Provider, type SwapDeskDeps, type SwapWallet } from './providers.js'
import { swapFollowers, type SwapUpdate } from './provider-updates.js'
import {
  cooperativeClaim,
  findLockupOutput,
  isValidSecretKey,
  keyPathRound,
  outputScriptOf,
  parseTree,
  preimageHashOf,
  publicKeyOf,
  scriptPathClaim,
  verifySwapTree,
  type SwapKeys,
} from './swap-scripts.js'
import type { TxSwapRow } from './swap-store.js'

/** How long the node may try to pay a hold invoice before answering (the payment itself goes on). */
const payTimeoutMs = 50_000
const lockedStatuses = new Set(['transaction.mempool', 'transaction.confirmed'])
const failedStatuses = new Set(['invoice.expired', 'swap.expired', 'transaction.failed', 'transaction.refunded'])

export interface TxSwapQuote {
  swap_operation_id: string
  invoice_amount_sats: number
  transaction_amount_sats: number
  swap_fee_sats: number
  chain_fee_sats: number
  service_fee_sats: number
  service_url: string
  expires_at_block_height: number
  paid_at_unix: number
  completed_at_unix: number
}

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
    what: 'transaction swap',
  })
  const claiming = new Set<string>()

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

  const fail = (swap: TxSwapRow, reason: string) => {
    if (store.failTxSwap(swap.id, reason, deps.now())) {
      log.warn({ swap: swap.id, reason }, 'transaction swap failed')
      followers.stop(swap.id)
    }
    settleWaiters(swap.id, { error: new OperationError('upstream_failed', `the swap failed: ${reason}`) })
  }

  /** Back to `quoted`: nothing was sent, so the quote stays usable until it expires. */
  const release = (swap: TxSwapRow, refusal: OperationError) => {
    followers.stop(swap.id)
    store.releaseTxSwap(swap.id)
    settleWaiters(swap.id, { error: refusal })
  }


  async function quoteOne(provider: Provider, userId: string | null, amountSats: number): Promise<TxSwapQuote> {
    const pair = await provider.api.reversePair()
    const { lockup, claim } = pair.fees.minerFees
    // The provider locks the amount plus our claim transaction's fee, so the address receives `amountSats` exactly.
    const onchainAmount = amountSats + claim
    if (onchainAmount < pair.limits.minimal || onchainAmount > pair.limits.maximal) {
      throw new QuoteRefused(provider.url, `swaps ${pair.limits.minimal}–${pair.limits.maximal} sats, not ${onchainAmount}`)
    }
    const preimage = deps.random(32)
    const preimageHash = preimageHashOf(preimage)
    const claimKey = swapSecretKey(deps.random, isValidSecretKey)
    const created = await provider.api.createReverseSwap({
      preimageHash: bytesToHex(preimageHash),
      claimPublicKey: bytesToHex(publicKeyOf(claimKey)),
      onchainAmount,
      pairHash: pair.hash,
    })
    if (created.onchainAmount !== onchainAmount) {
      throw new QuoteRefused(provider.url, `it would lock ${created.onchainAmount} sats instead of ${onchainAmount}`)
    }
    const invoice = await node.decodeInvoice(created.invoice)
    if (invoice.paymentHash !== bytesToHex(preimageHash)) {
      throw new QuoteRefused(provider.url, 'its invoice is not locked to our preimage hash')
    }
    if (!invoice.amountMsat || invoice.amountMsat % 1000 !== 0) {
      throw new QuoteRefused(provider.url, 'its invoice has no whole-sat amount')
    }
    const invoiceSats = invoice.amountMsat / 1000
    // Whether the provider takes its percentage of the invoice or of the locked amount, it cannot exceed this.
    const maxInvoiceSats = Math.ceil(((onchainAmount + lockup) * 100) / (100 - Math.min(pair.fees.percentage, 50))) + 1
    if (invoiceSats > maxInvoiceSats || invoiceSats < onchainAmount) {
      throw new QuoteRefused(provider.url, `its invoice asks ${invoiceSats} sats where its fees allow at most ${maxInvoiceSats}`)
    }
    const refusal = verifySwapTree({
      kind: 'reverse',
      given: created.swapTree,
      keys: { ourKey: claimKey, theirPublicKey: hexToBytes(created.refundPublicKey) },
      preimageHash,
      timeoutBlockHeight: created.timeoutBlockHeight,
      lockupAddress: created.lockupAddress,
      network,
    })
    if (refusal) throw new QuoteRefused(provider.url, `refused: ${refusal}`)
    const chainFee = lockup + claim
    const row = {
      id: bytesToHex(deps.random(16)),
      user_id: userId,
      provider_url: provider.url,
      provider_swap_id: created.id,
      preimage: bytesToHex(preimage),
      payment_hash: bytesToHex(preimageHash),
      claim_private_key: bytesToHex(claimKey),
      refund_public_key: created.refundPublicKey.toLowerCase(),
      swap_tree: JSON.stringify(created.swapTree),
      lockup_address: created.lockupAddress,
      timeout_block_height: created.timeoutBlockHeight,
      invoice: created.invoice,
      invoice_amount_sats: invoiceSats,
      transaction_amount_sats: amountSats,
      onchain_amount_sats: onchainAmount,
      swap_fee_sats: invoiceSats - amountSats - chainFee,
      chain_fee_sats: chainFee,
      service_fee_sats: userId === null ? 0 : wallet.outgoingServiceFeeSats(userId, invoiceSats),
      created_at: deps.now(),
    }
    store.insertTxSwap(row)
    return quoteOf(store.txSwap(row.id)!)
  }

  /** Claims a locked swap to its address; safe to call again (a stored claim is re-broadcast, never rebuilt). */
  async function claimSwap(swap: TxSwapRow, provider: Provider, lockupHex: string): Promise<void> {
    if (claiming.has(swap.id)) return
    claiming.add(swap.id)
    try {
      let current = store.txSwap(swap.id)!
      if (current.status !== 'paying') return
      if (!current.claim_tx_hex) {
        const keys = keysOf(current)
        const lockup = findLockupOutput(lockupHex, keys)
        if (!lockup) return fail(current, 'the provider reported a lockup transaction that does not pay the swap address')
        if (lockup.amountSats < current.onchain_amount_sats) {
          // Claiming would reveal the preimage for less than agreed; the hold invoice times out instead.
          return fail(current, `the provider locked ${lockup.amountSats} sats instead of ${current.onchain_amount_sats}`)
        }
        store.setTxLockup(current.id, lockup.txid)
        const destination = outputScriptOf(current.address!, network)!
        // The claim fee reserved in the quote; anything the provider locks beyond the agreed amount goes to the address.
        const feeSats = current.onchain_amount_sats - current.transaction_amount_sats
        const preimage = hexToBytes(current.preimage)
        let tx
        try {
          const spend = cooperativeClaim(keys, lockup, destination, feeSats, preimage)
          const round = keyPathRound(keys, spend.sighash)
          const partial = await provider.api.reverseClaim(current.provider_swap_id, {
            preimage: current.preimage,
            pubNonce: round.pubNonce,
            transaction: spend.tx.hex,
            index: 0,
          })
          tx = spend.signed(round.complete(partial))
        } catch (err) {
          log.warn({ swap: current.id, reason: (err as Error).message }, 'no cooperative claim; claiming through the script path')
          tx = scriptPathClaim(keys, lockup, destination, feeSats, preimage)
        }
        store.setClaimTx(current.id, tx.id, tx.hex)
        current = store.txSwap(swap.id)!
      }
      await provider.api.broadcast(current.claim_tx_hex!)
      if (store.finishTxSwap(current.id, deps.now())) log.info({ swap: current.id, txid: current.claim_tx_id }, 'transaction swap claimed')
      followers.stop(current.id)
      settleWaiters(current.id, { txid: current.claim_tx_id! })
    } catch (err) {
      // The claim stays stored; the next status update or the next start broadcasts it again.
      log.error({ err, swap: swap.id }, 'could not claim a transaction swap yet')
    } finally {
      claiming.delete(swap.id)
    }
  }

  async function onUpdate(swapId: string, update: SwapUpdate): Promise<void> {
    const swap = store.txSwap(swapId)
    if (!swap || swap.status !== 'paying') return
    const provider = providerFor(deps.providers, swap.provider_url)
    if (lockedStatuses.has(update.status)) {
      const hex = update.transaction?.hex ?? (await provider.api.reverseTransaction(swap.provider_swap_id)).hex
      if (hex) await claimSwap(swap, provider, hex)
    } else if (failedStatuses.has(update.status)) {
      fail(swap, `${update.status}${update.failureReason ? `: ${update.failureReason}` : ''}`)
    }
  }

  /** Resolves with the claim's txid, or rejects when the swap fails, or after `payWaitMs`. */
  const waitForClaim = (id: string) =>
    new Promise<string>((resolve, reject) => {
      const cancel = deps.timers.after(deps.payWaitMs, () => {
        waiters.get(id)?.delete(waiter)
        reject(new OperationError('upstream_failed', `the swap is paid and waits for the provider's lockup; ListTxSwaps shows when it is claimed`))
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
    const swap = store.txSwap(id)
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
    if (!store.startPaying(id, address, deps.now())) throw new OperationError('conflict', 'this swap is already being paid')
    const paying = store.txSwap(id)!
    followers.follow(paying)
    return paying
  }

  return {
    quote(userId: string | null, amountSats: number): Promise<TxSwapQuote[]> {
      if (!Number.isSafeInteger(amountSats) || amountSats <= 0) {
        throw new OperationError('invalid_input', 'transaction_amount_sats must be a positive integer')
      }
      return quoteAll(deps.providers, p => quoteOne(p, userId, amountSats), log)
    },

    /** PayAddress with a swap_operation_id: the user's balance pays the hold invoice with the service fee. */
    async payForUser(userId: string, request: { address: string; amountSats: number; swapOperationId: string }): Promise<PaidTxSwap> {
      const swap = await startPaying(userId, request.swapOperationId, request.address, request.amountSats)
      const claimed = waitForClaim(swap.id)
      claimed.catch(() => undefined) // awaited below; a failure before then must not go unhandled
      let refusal: OperationError | undefined
      try {
        await wallet.payInvoiceFor(userId, swap.invoice)
      } catch (err) {
        const payment = wallet.paymentByHash(swap.payment_hash)
        if (!payment) {
          // Refused before anything was recorded (balance, lock, gate): the quote may be paid again.
          refusal = isOperationError(err) ? err : new OperationError('upstream_failed', 'the swap invoice could not be paid')
          release(swap, refusal)
        } else if (payment.status === 'failed') {
          refusal = isOperationError(err) ? err : new OperationError('upstream_failed', 'the swap invoice could not be paid')
          fail(swap, `paying the swap invoice failed: ${refusal.message}`)
        }
        // Otherwise the payment is in flight: the claim (or its failure) decides, below.
      }
      const payment = wallet.paymentByHash(swap.payment_hash)
      if (payment) store.setPaymentSerial(swap.id, payment.operationSerial)
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
          if (outcome.status === 'failed') fail(swap, `the node could not pay the swap invoice: ${outcome.failureReason}`)
        })
        .catch(err => {
          if (!isOperationError(err)) {
            log.error({ err, swap: swap.id }, 'the node failed while paying a swap invoice; its outcome is not known yet')
            return
          }
          // The node refused up front and sent nothing: the quote stays usable.
          release(swap, err)
        })
      const txId = await claimed
      return { txId, serviceFeeSats: 0, networkFeeSats: swap.chain_fee_sats + swap.swap_fee_sats }
    },

    list(userId: string | null) {
      return store.txSwapsOf(userId).map(swap => {
        const operation = swap.user_id === null ? undefined : wallet.paymentOperationByHash(swap.payment_hash)
        return {
          quote: quoteOf(swap),
          ...(operation && swap.status !== 'quoted' ? { operation_payment: operation } : {}),
          ...(swap.failure_reason ? { failure_reason: swap.failure_reason } : {}),
          ...(swap.address ? { address_paid: swap.address } : {}),
          ...(swap.claim_tx_id ? { tx_id: swap.claim_tx_id } : {}),
        }
      })
    },

    /** Follows every paid swap again: the provider's current status continues each where it stopped. */
    resume(): number {
      const open = store.txSwapsInProgress()
      for (const swap of open) {
        try {
          followers.follow(swap)
        } catch (err) {
          log.error({ swap: swap.id, reason: (err as Error).message }, 'cannot resume a transaction swap')
        }
      }
      return open.length
    },

    /** Broadcasts again every claim stored but not yet accepted (the provider was unreachable). */
    async retryStoredClaims(): Promise<void> {
      for (const swap of store.txSwapsInProgress()) {
        if (!swap.claim_tx_hex) continue
        const provider = deps.providers.find(p => p.url === swap.provider_url)
        if (provider) await claimSwap(swap, provider, swap.claim_tx_hex)
      }
    },

    stop(): void {
      followers.stopAll()
    },
  }
}

function quoteOf(swap: TxSwapRow): TxSwapQuote {
  return {
    swap_operation_id: swap.id,
    invoice_amount_sats: swap.invoice_amount_sats,
    transaction_amount_sats: swap.transaction_amount_sats,
    swap_fee_sats: swap.swap_fee_sats,
    chain_fee_sats: swap.chain_fee_sats,
    service_fee_sats: swap.service_fee_sats,
    service_url: swap.provider_url,
    expires_at_block_height: swap.timeout_block_height,
    paid_at_unix: unixSecondsOrZero(swap.paid_at),
    completed_at_unix: unixSecondsOrZero(swap.completed_at),
  }
}

export type TxSwapDesk = ReturnType<typeof txSwapDesk>
