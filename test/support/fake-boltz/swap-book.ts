// The fake provider's swaps and what it does with them, on the fake LND's chain and Lightning network: reverse
// swaps lock real Taproot outputs once our hold invoice's HTLC arrives and settle it once the preimage shows;
// submarine swaps watch the fake LND wallet's sends for their lockup, pay the invoice and claim cooperatively.
// A reverse lockup is broadcast to the fake LND's chain and reported `transaction.mempool`, then
// `transaction.confirmed` once a block the test mines includes it. Switches let a test make it lie, fail or refuse
// to cooperate.
import { randomBytes } from 'node:crypto'
import bolt11 from 'bolt11'
import { Musig, TaprootUtils, reverseSwapTree, swapTree, SwapTreeSerializer, type Types } from 'boltz-core'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { Address, OutScript, SigHash, Transaction, p2wpkh } from '@scure/btc-signer'
import type { FakeLnd } from '../fake-lnd/fake-lnd.js'
import type { FakePayment } from '../fake-lnd/payment-book.js'
import { bolt11Networks } from '../outside-invoice.js'
import type { SwapOutputFacts } from './spend-check.js'
import { BadRequest, fees, limits, signingRound, type Behaviour, type FakeReverseSwap, type FakeSubmarineSwap, type FakeSwap } from './swap-terms.js'

const xonly = (key: Uint8Array) => TaprootUtils.toXOnly(key)


export function swapBook(lnd: FakeLnd, behaviour: Behaviour, notify: (swap: FakeSwap) => void) {
  const network = lnd.node.network.chain
  const lnKey = secp256k1.utils.randomSecretKey()
  const lnPubkey = bytesToHex(secp256k1.getPublicKey(lnKey, true))
  const swaps = new Map<string, FakeSwap>()
  const timeoutBlocks = 20

  const setStatus = (swap: FakeSwap, status: string, failureReason?: string) => {
    swap.status = status
    if (failureReason) swap.failureReason = failureReason
    notify(swap)
  }

  const outputOf = (key: Uint8Array, clientKey: Uint8Array, tree: Types.SwapTree) => {
    const musig = Musig.create(key, [secp256k1.getPublicKey(key, true), clientKey])
    const outputKey = xonly(TaprootUtils.tweakMusig(musig, tree.tree).aggPubkey)
    return {
      outputKey,
      internalKey: xonly(musig.aggPubkey),
      script: OutScript.encode({ type: 'tr', pubkey: outputKey }),
      address: Address(network).encode({ type: 'tr', pubkey: outputKey }),
    }
  }

  /** An address only the fake can spend: what a lying provider answers. */
  const ownAddress = () => p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), network).address!

  const holdInvoice = (paymentHash: string, amountSats: number): string => {
    const unsigned = bolt11.encode({
      network: bolt11Networks[lnd.node.network.lndName === 'regtest' ? 'regtest' : 'testnet'],
      timestamp: Math.floor(lnd.node.now() / 1000),
      millisatoshis: String(amountSats * 1000),
      tags: [
        { tagName: 'payment_hash', data: paymentHash },
        { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
        { tagName: 'description', data: 'Send to BTC address' },
        { tagName: 'expire_time', data: 3600 },
        { tagName: 'min_final_cltv_expiry', data: 80 },
      ],
    })
    return bolt11.sign(unsigned, Buffer.from(lnKey)).paymentRequest!
  }

  /** A real transaction paying `amountSats` to the swap output, funded by an input the fake makes up. */
  const lockupTx = (swap: FakeSwap, amountSats: number) => {
    const tx = new Transaction()
    tx.addOutput({ script: swap.script, amount: BigInt(amountSats) })
    tx.addInput({ txid: randomBytes(32), index: 0, finalScriptWitness: [randomBytes(64)] })
    return { txid: tx.id, hex: tx.hex, vout: 0, amountSats }
  }

  const reverseByHash = (paymentHash: string) =>
    [...swaps.values()].find((s): s is FakeReverseSwap => s.kind === 'reverse' && bytesToHex(s.preimageHash) === paymentHash)

  /** The HTLC for a hold invoice arrived: the provider locks the coins (or fails the swap). */
  lnd.node.remoteNodes.set(lnPubkey, (payment: FakePayment) => {
    const swap = reverseByHash(payment.paymentHash)
    if (!swap) return lnd.node.payments.fail(payment.paymentHash, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS')
    if (behaviour.failSwaps) {
      lnd.node.payments.fail(payment.paymentHash, 'FAILURE_REASON_TIMEOUT')
      return setStatus(swap, 'swap.expired', 'the provider could not lock the coins')
    }
    setStatus(swap, 'invoice.pending')
    if (behaviour.autoLockup) book.lockup(swap.id)
  })

  /** Our preimage became known (cooperative claim or a script-path claim on chain): settle the HTLC. */
  const learnPreimage = (swap: FakeReverseSwap, preimage: string) => {
    swap.preimage = preimage
    const payment = lnd.node.payments.get(bytesToHex(swap.preimageHash))
    if (payment?.status === 'IN_FLIGHT') lnd.node.payments.succeed(payment.paymentHash, preimage)
    setStatus(swap, 'invoice.settled')
  }

  // Submarine lockups: the fake watches what the fake LND's wallet sends.
  lnd.node.wallet.onSend(sent => {
    const tx = Transaction.fromRaw(hexToBytes(sent.hex), { allowUnknownOutputs: true })
    for (const swap of swaps.values()) {
      if (swap.kind !== 'submarine' || swap.lockup) continue
      for (let vout = 0; vout < tx.outputsLength; vout++) {
        const out = tx.getOutput(vout)
        if (!out.script || bytesToHex(out.script) !== bytesToHex(swap.script)) continue
        swap.lockup = { txid: tx.id, hex: sent.hex, vout, amountSats: Number(out.amount) }
        // After the daemon's send returns, as a provider sees the mempool a moment later.
        setImmediate(() => book.onSubmarineLockup(swap))
      }
    }
  })

  const book = {
    lnPubkey,
    swaps,
    get(id: string): FakeSwap {
      const swap = swaps.get(id)
      if (!swap) throw new BadRequest(`could not find swap with id: ${id}`)
      return swap
    },

    createReverse(body: { preimageHash?: unknown; claimPublicKey?: unknown; onchainAmount?: unknown; pairHash?: unknown }) {
      if (typeof body.preimageHash !== 'string' || !/^[0-9a-f]{64}$/.test(body.preimageHash)) throw new BadRequest('invalid preimageHash')
      if (typeof body.claimPublicKey !== 'string' || !/^0[23][0-9a-f]{64}$/.test(body.claimPublicKey)) throw new BadRequest('invalid claimPublicKey')
      const onchainAmount = Number(body.onchainAmount)
      if (!Number.isSafeInteger(onchainAmount) || onchainAmount < limits.minimal || onchainAmount > limits.maximal) {
        throw new BadRequest('invalid onchainAmount')
      }
      const key = secp256k1.utils.randomSecretKey()
      const clientKey = hexToBytes(body.claimPublicKey)
      const preimageHash = hexToBytes(body.preimageHash)
      const timeoutBlockHeight = lnd.node.blockHeight() + timeoutBlocks
      const tree = reverseSwapTree(false, preimageHash, clientKey, secp256k1.getPublicKey(key, true), timeoutBlockHeight)
      const output = outputOf(key, clientKey, tree)
      const invoiceSats = onchainAmount + fees.reverse.lockup + Math.ceil((onchainAmount * fees.reverse.percentage) / 100)
      const swap: FakeReverseSwap = {
        kind: 'reverse',
        id: randomBytes(6).toString('hex'),
        status: 'swap.created',
        key,
        clientKey,
        tree,
        ...output,
        preimageHash,
        timeoutBlockHeight,
        onchainAmount,
        invoice: holdInvoice(body.preimageHash, invoiceSats),
      }
      swaps.set(swap.id, swap)
      return {
        id: swap.id,
        invoice: swap.invoice,
        swapTree: SwapTreeSerializer.serializeSwapTree(tree),
        lockupAddress: behaviour.lieAboutAddress ? ownAddress() : swap.address,
        refundPublicKey: bytesToHex(secp256k1.getPublicKey(key, true)),
        timeoutBlockHeight,
        onchainAmount: behaviour.lieAboutAmount ? onchainAmount - 1_000 : onchainAmount,
      }
    },

    /** Locks a reverse swap's coins on chain. */
    lockup(id: string): void {
      const swap = book.get(id)
      if (swap.kind !== 'reverse') throw new Error('only reverse swaps are locked by the provider')
      swap.lockup = lockupTx(swap, swap.onchainAmount)
      if (behaviour.lieAboutConfirmation) return setStatus(swap, 'transaction.confirmed')
      lnd.node.chain.publish(swap.lockup.hex)
      setStatus(swap, 'transaction.mempool')
    },

    claimReverse(swap: FakeReverseSwap, body: { preimage?: unknown; pubNonce?: unknown; transaction?: unknown; index?: unknown }) {
      if (behaviour.refuseCooperation) throw new BadRequest('cooperative claims are disabled')
      if (typeof body.preimage !== 'string' || bytesToHex(sha256(hexToBytes(body.preimage))) !== bytesToHex(swap.preimageHash)) {
        throw new BadRequest('invalid preimage')
      }
      if (!swap.lockup) throw new BadRequest('no lockup transaction yet')
      const tx = Transaction.fromRaw(hexToBytes(String(body.transaction)), { allowUnknownOutputs: true })
      const index = Number(body.index)
      const input = tx.getInput(index)
      if (!input.txid || bytesToHex(input.txid) !== swap.lockup.txid || input.index !== swap.lockup.vout) {
        throw new BadRequest('the transaction does not spend the lockup output')
      }
      const sighash = tx.preimageWitnessV1(index, [swap.script], SigHash.DEFAULT, [BigInt(swap.lockup.amountSats)])
      const round = signingRound(swap.key, swap.clientKey, swap.tree, sighash)
      const signed = round.session(hexToBytes(String(body.pubNonce))).signPartial()
      learnPreimage(swap, body.preimage)
      return { pubNonce: bytesToHex(round.pubNonce), partialSignature: bytesToHex(signed.ourPartialSignature) }
    },

    createSubmarine(body: { invoice?: unknown; refundPublicKey?: unknown }) {
      if (typeof body.refundPublicKey !== 'string' || !/^0[23][0-9a-f]{64}$/.test(body.refundPublicKey)) throw new BadRequest('invalid refundPublicKey')
      let decoded
      try {
        decoded = bolt11.decode(String(body.invoice), bolt11Networks.regtest)
      } catch {
        throw new BadRequest('invalid invoice')
      }
      const paymentHash = String(decoded.tags.find(t => t.tagName === 'payment_hash')?.data ?? '')
      const invoiceAmountSats = Number(decoded.millisatoshis) / 1000
      if (!Number.isSafeInteger(invoiceAmountSats) || invoiceAmountSats < limits.minimal) throw new BadRequest('invalid invoice amount')
      const key = secp256k1.utils.randomSecretKey()
      const clientKey = hexToBytes(body.refundPublicKey)
      const preimageHash = hexToBytes(paymentHash)
      const timeoutBlockHeight = lnd.node.blockHeight() + timeoutBlocks
      const tree = swapTree(false, preimageHash, secp256k1.getPublicKey(key, true), clientKey, timeoutBlockHeight)
      const expectedAmount = invoiceAmountSats + Math.ceil((invoiceAmountSats * fees.submarine.percentage) / 100) + fees.submarine.miner
      const swap: FakeSubmarineSwap = {
        kind: 'submarine',
        id: randomBytes(6).toString('hex'),
        status: 'invoice.set',
        key,
        clientKey,
        tree,
        ...outputOf(key, clientKey, tree),
        preimageHash,
        timeoutBlockHeight,
        invoice: String(body.invoice),
        invoiceAmountSats,
        expectedAmount,
      }
      swaps.set(swap.id, swap)
      return {
        id: swap.id,
        address: behaviour.lieAboutAddress ? ownAddress() : swap.address,
        swapTree: SwapTreeSerializer.serializeSwapTree(tree),
        claimPublicKey: bytesToHex(secp256k1.getPublicKey(key, true)),
        timeoutBlockHeight,
        expectedAmount: behaviour.lieAboutAmount ? expectedAmount + 5_000 : expectedAmount,
        acceptZeroConf: false,
        bip21: `bitcoin:${swap.address}`,
      }
    },

    /** The lockup is in the mempool: pay the invoice now, or when the test says. */
    onSubmarineLockup(swap: FakeSubmarineSwap): void {
      if (swap.lockup!.amountSats < swap.expectedAmount) return setStatus(swap, 'transaction.lockupFailed', 'insufficient amount')
      setStatus(swap, 'transaction.mempool')
      if (behaviour.autoPay) book.payInvoice(swap.id)
    },

    /** Pays a locked submarine swap's invoice (or fails to), then asks the client to co-sign our claim. */
    payInvoice(id: string): void {
      const swap = book.get(id)
      if (swap.kind !== 'submarine' || !swap.lockup) throw new Error('only a locked submarine swap has an invoice to pay')
      if (behaviour.failSwaps) return setStatus(swap, 'invoice.failedToPay', 'no route found')
      const hash = bytesToHex(swap.preimageHash)
      lnd.settleInvoice(hash)
      const invoice = lnd.node.invoices.lookup(hash)!
      setStatus(swap, 'invoice.paid')
      // Our claim: all of the lockup but a fee, to an address of ours.
      const tx = new Transaction({ version: 2 })
      tx.addInput({ txid: swap.lockup!.txid, index: swap.lockup!.vout, sequence: 0xfffffffd })
      tx.addOutput({ script: OutScript.encode(Address(network).decode(ownAddress())), amount: BigInt(swap.lockup!.amountSats - 300) })
      const sighash = tx.preimageWitnessV1(0, [swap.script], SigHash.DEFAULT, [BigInt(swap.lockup!.amountSats)])
      swap.claim = { tx, sighash, round: signingRound(swap.key, swap.clientKey, swap.tree, sighash) }
      swap.preimage = invoice.preimage.toString('hex')
      setStatus(swap, 'transaction.claim.pending')
    },

    claimRequest(swap: FakeSubmarineSwap) {
      if (!swap.claim) throw new BadRequest('swap is not claimable yet')
      return {
        preimage: swap.preimage!,
        pubNonce: bytesToHex(swap.claim.round.pubNonce),
        transactionHash: bytesToHex(swap.claim.sighash),
      }
    },

    /** The client's partial signature for our claim: verified, aggregated and checked as a final signature. */
    acceptClaimSignature(swap: FakeSubmarineSwap, body: { pubNonce?: unknown; partialSignature?: unknown }) {
      if (!swap.claim) throw new BadRequest('swap is not claimable yet')
      const session = swap.claim.round.session(hexToBytes(String(body.pubNonce)))
      const partial = hexToBytes(String(body.partialSignature))
      if (!session.verifyPartial(swap.clientKey, partial)) throw new BadRequest('invalid partial signature')
      const signature = session.addPartial(swap.clientKey, partial).signPartial().aggregatePartials()
      swap.claim.tx.updateInput(0, { finalScriptWitness: [signature] })
      swap.claimedCooperatively = true
      setStatus(swap, 'transaction.claimed')
      return {}
    },

    refundSubmarine(swap: FakeSubmarineSwap, body: { pubNonce?: unknown; transaction?: unknown; index?: unknown }) {
      if (behaviour.refuseCooperation) throw new BadRequest('cooperative refunds are disabled')
      if (!['invoice.failedToPay', 'transaction.lockupFailed', 'swap.expired'].includes(swap.status)) {
        throw new BadRequest('swap not eligible for a cooperative refund')
      }
      const tx = Transaction.fromRaw(hexToBytes(String(body.transaction)), { allowUnknownOutputs: true })
      const index = Number(body.index)
      const input = tx.getInput(index)
      if (!swap.lockup || !input.txid || bytesToHex(input.txid) !== swap.lockup.txid || input.index !== swap.lockup.vout) {
        throw new BadRequest('the transaction does not spend the lockup output')
      }
      const sighash = tx.preimageWitnessV1(index, [swap.script], SigHash.DEFAULT, [BigInt(swap.lockup.amountSats)])
      const round = signingRound(swap.key, swap.clientKey, swap.tree, sighash)
      const signed = round.session(hexToBytes(String(body.pubNonce))).signPartial()
      return { pubNonce: bytesToHex(round.pubNonce), partialSignature: bytesToHex(signed.ourPartialSignature) }
    },

    /** What a spend of this swap's output must satisfy. */
    outputFacts(swap: FakeSwap): SwapOutputFacts {
      const ours = xonly(secp256k1.getPublicKey(swap.key, true))
      const theirs = xonly(swap.clientKey)
      return {
        txid: swap.lockup!.txid,
        vout: swap.lockup!.vout,
        amountSats: swap.lockup!.amountSats,
        script: swap.script,
        outputKey: swap.outputKey,
        internalKey: swap.internalKey,
        tree: swap.tree,
        preimageHash: swap.preimageHash,
        claimKey: swap.kind === 'reverse' ? theirs : ours,
        refundKey: swap.kind === 'reverse' ? ours : theirs,
        timeoutBlockHeight: swap.timeoutBlockHeight,
      }
    },

    learnPreimage,
    setStatus,

    /** A new block: lockups in it confirm; swaps past their timeout expire (a reverse swap's held HTLC is failed back). */
    onBlock(height: number): void {
      for (const swap of swaps.values()) {
        if (swap.kind === 'reverse' && swap.status === 'transaction.mempool' && lnd.node.chain.confirmedAt(swap.lockup!.txid) !== undefined) {
          setStatus(swap, 'transaction.confirmed')
        }
        if (height < swap.timeoutBlockHeight) continue
        if (swap.kind === 'reverse' && !swap.preimage && swap.status !== 'swap.expired') {
          const payment = lnd.node.payments.get(bytesToHex(swap.preimageHash))
          if (payment?.status === 'IN_FLIGHT') lnd.node.payments.fail(payment.paymentHash, 'FAILURE_REASON_TIMEOUT')
          setStatus(swap, 'swap.expired')
        }
        if (swap.kind === 'submarine' && ['invoice.set', 'transaction.mempool'].includes(swap.status)) setStatus(swap, 'swap.expired')
      }
    },
  }
  return book
}

export type SwapBook = ReturnType<typeof swapBook>
