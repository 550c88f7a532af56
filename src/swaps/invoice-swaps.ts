// Invoice swaps (on-chain → Lightning, Boltz "submarine"), the operator's (docs/pub-protocol.md, "Swaps"). Quote:
// the node issues an invoice, each provider makes a swap for it, and we keep only swaps whose tree and lockup address
// commit to our refund key and whose amount stays within the provider's own fees. Pay: the node's wallet sends to
// the lockup address; the provider pays the invoice and asks us to co-sign its claim, which we do only once the
// invoice is paid. Refund: cooperatively as soon as the swap failed, otherwise through the script path after the
// timeout; a refund is stored before it is broadcast, so asking again returns the same transaction.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { OperationError, isOperationError } from '../bus/index.js'
import { providerFor, quoteAll, QuoteRefused, swapSecretKey, unixSecondsOrZero, type Provider, type SwapDeskDeps } from './providers.js'
import { shownUrl } from './provider-api.js'
import { swapFollowers, type SwapUpdate } from './provider-updates.js'
import {
  cooperativeRefund,
  findLockupOutput,
  isValidSecretKey,
  keyPathRound,
  outputScriptOf,
  parseTree,
  preimageHashOf,
  publicKeyOf,
  scriptPathRefund,
  verifySwapTree,
  type SwapKeys,
} from './swap-scripts.js'
import type { InvoiceSwapRow } from './swap-store.js'

const invoiceExpirySeconds = 3600
const failedStatuses = new Set(['invoice.failedToPay', 'transaction.lockupFailed', 'swap.expired'])
const doneStatuses = new Set(['invoice.paid', 'transaction.claimed'])

export interface InvoiceSwapQuoteRequest {
  amountSats: number
  fees?: { satPerVbyte?: number; targetConf?: number }
}

export function invoiceSwapDesk(deps: SwapDeskDeps) {
  const { store, node, network, log } = deps
  const followers = swapFollowers<InvoiceSwapRow>({
    updatesFor: url => providerFor(deps.providers, url).updates,
    onUpdate: (id, update) => onUpdate(id, update),
    log,
    timers: deps.timers,
    what: 'invoice swap',
  })
  /** Swaps paid with `no_claim`: we do not co-sign the provider's claim (it then takes the script path). */
  const noClaim = new Set<string>()

  const keysOf = (swap: InvoiceSwapRow): SwapKeys => ({
    ourKey: hexToBytes(swap.refund_private_key),
    theirPublicKey: hexToBytes(swap.claim_public_key),
    tree: parseTree(swap.swap_tree),
  })


  async function quoteOne(provider: Provider, invoice: { paymentRequest: string; paymentHash: string }, request: InvoiceSwapQuoteRequest) {
    const pair = await provider.api.submarinePair()
    const amount = request.amountSats
    if (amount < pair.limits.minimal || amount > pair.limits.maximal) {
      throw new QuoteRefused(provider.url, `swaps ${pair.limits.minimal}–${pair.limits.maximal} sats, not ${amount}`)
    }
    const refundKey = swapSecretKey(deps.random, isValidSecretKey)
    const created = await provider.api.createSubmarineSwap({
      invoice: invoice.paymentRequest,
      refundPublicKey: bytesToHex(publicKeyOf(refundKey)),
      pairHash: pair.hash,
    })
    const maxExpected = amount + Math.ceil((amount * pair.fees.percentage) / 100) + pair.fees.minerFees
    if (created.expectedAmount > maxExpected || created.expectedAmount < amount) {
      throw new QuoteRefused(provider.url, `refused: it asks ${created.expectedAmount} sats for a ${amount}-sat invoice, its fees allow ${maxExpected}`)
    }
    const refusal = verifySwapTree({
      kind: 'submarine',
      given: created.swapTree,
      keys: { ourKey: refundKey, theirPublicKey: hexToBytes(created.claimPublicKey) },
      preimageHash: hexToBytes(invoice.paymentHash),
      timeoutBlockHeight: created.timeoutBlockHeight,
      lockupAddress: created.address,
      network,
    })
    if (refusal) throw new QuoteRefused(provider.url, `refused: ${refusal}`)
    const estimate = await node.estimateChainFee({
      address: created.address,
      amountSats: created.expectedAmount,
      ...(request.fees?.targetConf ? { targetConf: request.fees.targetConf } : {}),
    })
    const rate = request.fees?.satPerVbyte || estimate.satPerVbyte
    // The estimate's size at the asked rate.
    const chainFee = Math.ceil((estimate.feeSats * rate) / Math.max(estimate.satPerVbyte, 1))
    const row = {
      id: bytesToHex(deps.random(16)),
      provider_url: provider.url,
      provider_swap_id: created.id,
      invoice: invoice.paymentRequest,
      payment_hash: invoice.paymentHash,
      invoice_amount_sats: amount,
      refund_private_key: bytesToHex(refundKey),
      claim_public_key: created.claimPublicKey.toLowerCase(),
      swap_tree: JSON.stringify(created.swapTree),
      lockup_address: created.address,
      expected_amount_sats: created.expectedAmount,
      swap_fee_sats: created.expectedAmount - amount,
      chain_fee_sats: chainFee,
      sat_per_vbyte: rate,
      timeout_block_height: created.timeoutBlockHeight,
      created_at: deps.now(),
    }
    return quoteOf(await store.insertInvoiceSwap(row))
  }

  /** Co-signs the provider's claim of our lockup, only once it shows the preimage of our paid invoice. */
  async function cooperateOnClaim(swap: InvoiceSwapRow, provider: Provider): Promise<void> {
    if (noClaim.has(swap.id)) return
    const request = await provider.api.submarineClaimRequest(swap.provider_swap_id)
    if (bytesToHex(preimageHashOf(hexToBytes(request.preimage))) !== swap.payment_hash) {
      log.warn({ swap: swap.id }, 'the provider asked to claim with a wrong preimage; not co-signing')
      return
    }
    const invoice = await node.lookupInvoice(swap.payment_hash)
    if (invoice?.state !== 'paid') {
      log.warn({ swap: swap.id }, 'the provider asked to claim before our invoice is paid; not co-signing')
      return
    }
    const round = keyPathRound(keysOf(swap), hexToBytes(request.transactionHash))
    await provider.api.submarineClaimSignature(swap.provider_swap_id, round.partialFor(request.pubNonce))
    log.info({ swap: swap.id }, 'co-signed the provider claim of an invoice swap')
  }

  async function onUpdate(swapId: string, update: SwapUpdate): Promise<void> {
    const swap = await store.invoiceSwap(swapId)
    // A completed swap (our invoice paid, `invoice.paid`) is followed on until the provider claims: its claim
    // request comes after that status.
    if (!swap || (swap.status !== 'paid' && swap.status !== 'completed')) return
    const provider = providerFor(deps.providers, swap.provider_url)
    if (update.status === 'transaction.claim.pending') {
      await cooperateOnClaim(swap, provider)
      await finish(swap, true)
    } else if (doneStatuses.has(update.status)) {
      await finish(swap, update.status === 'transaction.claimed')
    } else if (failedStatuses.has(update.status)) {
      const reason = `${update.status}${update.failureReason ? `: ${update.failureReason}` : ''}`
      if (await store.failInvoiceSwap(swap.id, reason)) log.warn({ swap: swap.id, reason }, 'invoice swap failed; it can be refunded')
      followers.stop(swap.id)
    }
  }

  const finish = async (swap: InvoiceSwapRow, claimed: boolean) => {
    if (await store.finishInvoiceSwap(swap.id, deps.now())) log.info({ swap: swap.id }, 'invoice swap completed')
    if (claimed && !noClaim.has(swap.id)) followers.stop(swap.id)
  }

  const find = async (id: string): Promise<InvoiceSwapRow> => {
    const swap = await store.invoiceSwap(id)
    if (!swap) throw new OperationError('not_found', 'no invoice swap with this swap_operation_id (quotes are removed once they expire)')
    return swap
  }

  /** The lockup output as the provider's copy of our lockup transaction shows it. */
  async function lockupOf(swap: InvoiceSwapRow, provider: Provider) {
    const tx = await provider.api.submarineTransaction(swap.provider_swap_id)
    if (!tx.hex) throw new OperationError('upstream_failed', 'the provider did not send the lockup transaction')
    const lockup = findLockupOutput(tx.hex, keysOf(swap))
    if (!lockup || (swap.lockup_tx_id && lockup.txid !== swap.lockup_tx_id)) {
      throw new OperationError('upstream_failed', "the provider's lockup transaction is not the one the node sent to this swap")
    }
    return lockup
  }

  async function broadcastRefund(swap: InvoiceSwapRow, provider: Provider): Promise<{ tx_id: string }> {
    try {
      await provider.api.broadcast(swap.refund_tx_hex!)
    } catch (err) {
      throw new OperationError(
        'upstream_failed',
        `the refund ${swap.refund_tx_id} is signed and kept, but broadcasting it failed (${(err as Error).message}); ask again to re-broadcast it`,
      )
    }
    return { tx_id: swap.refund_tx_id! }
  }

  return {
    async quote(request: InvoiceSwapQuoteRequest) {
      if (!Number.isSafeInteger(request.amountSats) || request.amountSats <= 0) {
        throw new OperationError('invalid_input', 'amount_sats must be a positive integer')
      }
      const invoice = await node.createInvoice({
        amountMsat: request.amountSats * 1000,
        description: 'Admin Swap',
        expirySeconds: invoiceExpirySeconds,
      })
      return quoteAll(deps.providers, p => quoteOne(p, invoice, request), log)
    },

    async pay(request: { swapOperationId: string; satPerVbyte?: number; noClaim?: boolean }): Promise<{ tx_id: string }> {
      const swap = await find(request.swapOperationId)
      if (swap.status !== 'quoted') {
        if (swap.lockup_tx_id) return { tx_id: swap.lockup_tx_id }
        // Taken for paying by another call whose lockup is not sent yet: the same answer that call's race gives.
        throw new OperationError('conflict', swap.status === 'paid' ? 'this swap is already being paid' : `this swap is already ${swap.status}`)
      }
      const height = await deps.blockHeight()
      if (height >= swap.timeout_block_height) {
        throw new OperationError('invalid_input', `this swap quote expired at block ${swap.timeout_block_height}; ask for a new quote`)
      }
      // Checked again from what we stored: the coins go only to an address that commits to our refund key.
      const refusal = verifySwapTree({
        kind: 'submarine',
        given: JSON.parse(swap.swap_tree),
        keys: { ourKey: hexToBytes(swap.refund_private_key), theirPublicKey: hexToBytes(swap.claim_public_key) },
        preimageHash: hexToBytes(swap.payment_hash),
        timeoutBlockHeight: swap.timeout_block_height,
        lockupAddress: swap.lockup_address,
        network,
      })
      if (refusal) throw new OperationError('upstream_failed', `refusing to fund this swap: ${refusal}`)
      if (!(await store.takeInvoiceSwapForPaying(swap.id, deps.now()))) throw new OperationError('conflict', 'this swap is already being paid')
      const rate = request.satPerVbyte || swap.sat_per_vbyte
      if (request.noClaim) noClaim.add(swap.id)
      followers.follow(swap)
      let sent
      try {
        sent = await node.sendToAddress({ address: swap.lockup_address, amountSats: swap.expected_amount_sats, satPerVbyte: rate })
      } catch (err) {
        if (isOperationError(err)) {
          // The node refused up front: nothing was sent, the quote can be paid again.
          await store.releaseInvoiceSwap(swap.id)
          followers.stop(swap.id)
          throw err
        }
        log.error({ err, swap: swap.id }, 'the node failed while funding an invoice swap; whether coins left is unknown')
        throw new OperationError('upstream_failed', 'the node failed while sending the lockup; check its wallet before paying again')
      }
      await store.setInvoiceLockup(swap.id, sent.txid, rate)
      log.info({ swap: swap.id, txid: sent.txid }, 'invoice swap funded')
      return { tx_id: sent.txid }
    },

    async refund(request: { swapOperationId: string; satPerVbyte: number }): Promise<{ tx_id: string }> {
      if (!Number.isSafeInteger(request.satPerVbyte) || request.satPerVbyte <= 0) {
        throw new OperationError('invalid_input', 'sat_per_v_byte must be a positive integer')
      }
      let swap = await find(request.swapOperationId)
      const provider = providerFor(deps.providers, swap.provider_url)
      if (swap.refund_tx_id) return broadcastRefund(swap, provider)
      if (swap.status === 'quoted') throw new OperationError('invalid_input', 'this swap was never paid: there is nothing to refund')
      if (swap.status === 'completed') throw new OperationError('conflict', 'this swap completed: the provider paid the invoice, there is nothing to refund')
      const height = await deps.blockHeight()
      const timedOut = height >= swap.timeout_block_height
      if (swap.status !== 'failed' && !timedOut) {
        // The stream may not have told us yet; the provider's current status decides.
        const status = await provider.api.swapStatus(swap.provider_swap_id)
        if (failedStatuses.has(status.status)) await store.failInvoiceSwap(swap.id, status.status)
        else {
          throw new OperationError(
            'conflict',
            `this swap has not failed (${status.status}); it can be refunded once it fails or from block ${swap.timeout_block_height} (now ${height})`,
          )
        }
      }
      const lockup = await lockupOf(swap, provider)
      if (!swap.refund_address) await store.setRefundAddress(swap.id, await node.newAddress('WITNESS_PUBKEY_HASH'))
      swap = await find(swap.id)
      const destination = outputScriptOf(swap.refund_address!, network)
      if (!destination) throw new OperationError('internal', 'the node gave a refund address of another network')
      const keys = keysOf(swap)
      let tx
      try {
        const spend = cooperativeRefund(keys, lockup, destination, request.satPerVbyte)
        const round = keyPathRound(keys, spend.sighash)
        const partial = await provider.api.submarineRefund(swap.provider_swap_id, {
          pubNonce: round.pubNonce,
          transaction: spend.tx.hex,
          index: 0,
        })
        tx = spend.signed(round.complete(partial))
      } catch (err) {
        if (!timedOut) {
          throw new OperationError(
            'upstream_failed',
            `the provider does not co-sign a refund (${(err as Error).message}); without it the refund is possible from block ${swap.timeout_block_height} (now ${height})`,
          )
        }
        log.warn({ swap: swap.id, reason: (err as Error).message }, 'no cooperative refund; refunding through the script path')
        tx = scriptPathRefund(keys, lockup, destination, swap.timeout_block_height, request.satPerVbyte)
      }
      // A concurrent call that stored its refund first wins; this one returns that transaction.
      await store.setRefundTx(swap.id, tx.id, tx.hex, deps.now())
      swap = await find(swap.id)
      followers.stop(swap.id)
      log.info({ swap: swap.id, txid: swap.refund_tx_id }, 'invoice swap refunded')
      return broadcastRefund(swap, provider)
    },

    async list() {
      const height = await deps.blockHeight()
      return {
        swaps: (await store.invoiceSwaps()).map(swap => ({
          quote: quoteOf(swap),
          ...(swap.failure_reason ? { failure_reason: swap.failure_reason } : {}),
          ...(swap.completed_at ? { completed_at_unix: unixSecondsOrZero(swap.completed_at) } : {}),
          ...(swap.refund_address ? { refund_address: swap.refund_address } : {}),
          ...(swap.refund_at ? { refund_at_unix: unixSecondsOrZero(swap.refund_at) } : {}),
          ...(swap.refund_tx_id ? { refund_tx_id: swap.refund_tx_id } : {}),
        })),
        current_block_height: height,
      }
    },

    async resume(): Promise<number> {
      const open = (await store.invoiceSwapsInProgress()).filter(swap => swap.status === 'paid')
      for (const swap of open) {
        try {
          followers.follow(swap)
        } catch (err) {
          log.error({ swap: swap.id, reason: (err as Error).message }, 'cannot resume an invoice swap')
        }
      }
      return open.length
    },

    stop(): void {
      followers.stopAll()
    },
  }
}

function quoteOf(swap: InvoiceSwapRow) {
  return {
    swap_operation_id: swap.id,
    invoice: swap.invoice,
    invoice_amount_sats: swap.invoice_amount_sats,
    address: swap.lockup_address,
    transaction_amount_sats: swap.expected_amount_sats,
    chain_fee_sats: swap.chain_fee_sats,
    service_fee_sats: 0,
    service_url: shownUrl(swap.provider_url),
    swap_fee_sats: swap.swap_fee_sats,
    tx_id: swap.lockup_tx_id ?? '',
    paid_at_unix: unixSecondsOrZero(swap.paid_at),
    expires_at_block_height: swap.timeout_block_height,
    sat_per_v_byte: swap.sat_per_vbyte,
  }
}

export type InvoiceSwapDesk = ReturnType<typeof invoiceSwapDesk>
