// A transaction swap quote from one provider: its reverse pair read, a swap created for our preimage hash and
// key, and everything it answers checked (amounts against its own fees, the hold invoice against our hash, the
// swap tree against the lockup address) before the quote is stored with the secrets needed to finish it.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { shownUrl } from './provider-api.js'
import { QuoteRefused, swapSecretKey, unixSecondsOrZero, type Provider, type SwapDeskDeps, type SwapWallet } from './providers.js'
import { isValidSecretKey, preimageHashOf, publicKeyOf, verifySwapTree } from './swap-scripts.js'
import type { TxSwapRow } from './swap-store.js'

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

export async function quoteTxSwap(
  deps: SwapDeskDeps & { wallet: SwapWallet; provider: Provider; userId: string | null; amountSats: number },
): Promise<TxSwapQuote> {
  const { store, node, network, wallet, provider, userId, amountSats } = deps
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
    service_fee_sats: userId === null ? 0 : await wallet.outgoingServiceFeeSats(userId, invoiceSats),
    created_at: deps.now(),
  }
  return quoteOf(await store.insertTxSwap(row))
}

export function quoteOf(swap: TxSwapRow): TxSwapQuote {
  return {
    swap_operation_id: swap.id,
    invoice_amount_sats: swap.invoice_amount_sats,
    transaction_amount_sats: swap.transaction_amount_sats,
    swap_fee_sats: swap.swap_fee_sats,
    chain_fee_sats: swap.chain_fee_sats,
    service_fee_sats: swap.service_fee_sats,
    service_url: shownUrl(swap.provider_url),
    expires_at_block_height: swap.timeout_block_height,
    paid_at_unix: unixSecondsOrZero(swap.paid_at),
    completed_at_unix: unixSecondsOrZero(swap.completed_at),
  }
}
