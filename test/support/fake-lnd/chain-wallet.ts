// The fake LND's on-chain wallet: 1 BTC to start, fresh addresses of each type for its network, sends that pay
// amount plus a fee (change back to the wallet as output 0, so a CPFP bump of it is valid), and a record of its
// transactions for GetTransaction / GetTransactions.
import { randomBytes } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { Address, NETWORK, OutScript, TEST_NETWORK, Transaction, p2sh, p2tr, p2wpkh } from '@scure/btc-signer'
import { lndSays, RpcError, grpcCode } from './rpc-error.js'

export type ChainNetwork = { bech32: string; pubKeyHash: number; scriptHash: number; wif: number }
type AddressType = 'WITNESS_PUBKEY_HASH' | 'NESTED_PUBKEY_HASH' | 'TAPROOT_PUBKEY'

/** vbytes of a one-input, two-output P2WPKH transaction: what every fake transaction weighs. */
const txVbytes = 141
/** The fee rate LND's estimator gives the fake when no rate is asked for. */
const estimatedSatPerVbyte = 2
const startingSats = 100_000_000

export interface FakeTx {
  txid: string
  /** Net effect on the wallet: negative for a send (amount plus fee). */
  amountSats: number
  feeSats: number
  timeSec: number
  destAddresses: string[]
  /** Outputs that pay the wallet itself (by index), which LND could spend or bump. */
  ownOutputs: number[]
  confirmed: boolean
  label: string
  /** The raw transaction: real outputs (change first, then the destinations), a synthetic funding input. */
  hex: string
}

/** Told of every transaction the wallet sends (a fake swap provider watching the chain for its lockups). */
export type SendListener = (tx: FakeTx) => void

export function chainWallet({ network, now }: { network: ChainNetwork; now(): number }) {
  let confirmedSats = startingSats
  const txs = new Map<string, FakeTx>()
  const sendListeners = new Set<SendListener>()

  /** A real transaction paying `outputs` from an input the fake makes up (no previous transaction exists). */
  const rawTx = (outputs: { address: string; sats: number }[]): { txid: string; hex: string } => {
    const tx = new Transaction()
    for (const out of outputs) {
      tx.addOutput({ script: OutScript.encode(Address(network).decode(out.address)), amount: BigInt(out.sats) })
    }
    tx.addInput({ txid: randomBytes(32), index: 0, finalScriptWitness: [randomBytes(64)] })
    return { txid: tx.id, hex: tx.hex }
  }

  const freshKey = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)
  const newAddress = (type: AddressType): string => {
    const key = freshKey()
    if (type === 'NESTED_PUBKEY_HASH') return p2sh(p2wpkh(key, network), network).address!
    if (type === 'TAPROOT_PUBKEY') return p2tr(key.slice(1), undefined, network).address!
    return p2wpkh(key, network).address!
  }

  /** Spends `amountSats` plus the fee from confirmed coins; the fee comes from the rate asked for or estimated. */
  const spend = (amountSats: number, satPerVbyte: number, destAddresses: string[], label: string): FakeTx => {
    const feeSats = txVbytes * (satPerVbyte > 0 ? satPerVbyte : estimatedSatPerVbyte)
    if (amountSats + feeSats > confirmedSats) throw lndSays('insufficient funds available to construct transaction')
    confirmedSats -= amountSats + feeSats
    const change = newAddress('WITNESS_PUBKEY_HASH')
    const raw = rawTx([
      { address: change, sats: Math.max(confirmedSats, 1000) },
      ...destAddresses.map(address => ({ address, sats: amountSats })),
    ])
    const tx: FakeTx = {
      txid: raw.txid,
      amountSats: -(amountSats + feeSats),
      feeSats,
      timeSec: Math.floor(now() / 1000),
      destAddresses: [change, ...destAddresses],
      ownOutputs: [0],
      confirmed: false,
      label,
      hex: raw.hex,
    }
    txs.set(tx.txid, tx)
    for (const listener of sendListeners) listener(tx)
    return tx
  }

  /**
   * LND's words (rpcserver.go): an address that does not decode gets btcutil's decoding error, one of another
   * network "address: … is not valid for this network". A real LND says "invalid character not part of charset:
   * 111" for the 'o' of bcrt1qnotreally; the fake gives btcutil's general one.
   */
  const checkAddress = (address: string) => {
    try {
      Address(network).decode(address)
    } catch {
      const elsewhere = [NETWORK, TEST_NETWORK, { ...TEST_NETWORK, bech32: 'bcrt' }].some(other => {
        try {
          Address(other).decode(address)
          return true
        } catch {
          return false
        }
      })
      throw lndSays(elsewhere ? `address: ${address} is not valid for this network` : 'decoded address is of unknown format')
    }
  }

  return {
    newAddress,

    send(address: string, amountSats: number, satPerVbyte: number): FakeTx {
      checkAddress(address)
      if (amountSats <= 0) throw lndSays('amount must be positive')
      return spend(amountSats, satPerVbyte, [address], '')
    },

    /** A channel's funding transaction; its output 1 is the channel. */
    fund(amountSats: number, satPerVbyte: number): FakeTx {
      return spend(amountSats, satPerVbyte, [newAddress('TAPROOT_PUBKEY')], 'channel funding')
    },

    /** Coins arriving in the wallet (a closed channel's balance), unconfirmed until `confirmAll`. */
    receive(amountSats: number, label: string): FakeTx {
      const address = newAddress('WITNESS_PUBKEY_HASH')
      const raw = rawTx([{ address, sats: amountSats }])
      const tx: FakeTx = {
        txid: raw.txid,
        hex: raw.hex,
        amountSats,
        feeSats: 0,
        timeSec: Math.floor(now() / 1000),
        destAddresses: [address],
        ownOutputs: [0],
        confirmed: false,
        label,
      }
      txs.set(tx.txid, tx)
      return tx
    },

    /** walletrpc.BumpFee: CPFP on an unconfirmed output the wallet owns. */
    bump(txid: string, outputIndex: number): void {
      const tx = txs.get(txid)
      if (!tx || !tx.ownOutputs.includes(outputIndex)) throw lndSays('the passed output does not belong to the wallet')
      if (tx.confirmed) throw lndSays(`unable to bump fee of a confirmed transaction ${txid}`)
    },

    tx(txid: string): FakeTx {
      const tx = txs.get(txid)
      if (!tx) throw new RpcError(grpcCode.notFound, 'transaction not found')
      return tx
    },

    /** Follows every send from now on; the returned function stops it. */
    onSend(listener: SendListener): () => void {
      sendListeners.add(listener)
      return () => sendListeners.delete(listener)
    },

    /** The fee LND's estimator gives for a send to `addresses` at its default rate. */
    estimate(addresses: string[]): { feeSats: number; satPerVbyte: number } {
      for (const address of addresses) checkAddress(address)
      return { feeSats: txVbytes * estimatedSatPerVbyte, satPerVbyte: estimatedSatPerVbyte }
    },

    list(): FakeTx[] {
      return [...txs.values()]
    },

    balances() {
      const unconfirmedSats = [...txs.values()].filter(t => !t.confirmed && t.amountSats > 0).reduce((s, t) => s + t.amountSats, 0)
      return { confirmedSats, unconfirmedSats }
    },

    /** A block: every transaction confirms and received coins become spendable. */
    confirmAll(): void {
      for (const tx of txs.values()) {
        if (tx.confirmed) continue
        tx.confirmed = true
        if (tx.amountSats > 0) confirmedSats += tx.amountSats
      }
    },
  }
}

export type ChainWallet = ReturnType<typeof chainWallet>

/** lnrpc.Transaction as LND sends it. */
export function txAsRpc(tx: FakeTx, blockHeight: number) {
  return {
    tx_hash: tx.txid,
    amount: tx.amountSats,
    num_confirmations: tx.confirmed ? 1 : 0,
    block_hash: tx.confirmed ? randomBytes(32).toString('hex') : '',
    block_height: tx.confirmed ? blockHeight : 0,
    time_stamp: tx.timeSec,
    total_fees: tx.feeSats,
    dest_addresses: tx.destAddresses,
    output_details: [],
    raw_tx_hex: tx.hex,
    label: tx.label,
    previous_outpoints: [{ outpoint: `${'ab'.repeat(32)}:0`, is_our_output: true }],
  }
}
