// The embedded node's simulated on-chain wallet: deterministic addresses from the node key, a balance that is
// the sum of its recorded transactions, sends and fee bumps. Nothing is broadcast; a transaction "confirms" when
// the simulated chain (one block per ten minutes of the injected clock) moves past the block it was made in.
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { Address, p2sh, p2tr, p2wpkh } from '@scure/btc-signer'
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { AddressType, ChainSend, SendToAddressRequest } from '../lightning-node.js'
import type { NetworkParams } from './network-params.js'

const genesisBlockTimeMs = 1_231_006_505_000 // mainnet genesis block, 2009-01-03T18:15:05Z
const blockIntervalMs = 600_000
/** What the simulated wallet holds on first start: 1 BTC, enough to open a few channels in a demo. */
export const initialWalletBalanceSats = 100_000_000
/** Used when the caller leaves the fee rate to the node (LND would ask its estimator). */
export const defaultSatPerVbyte = 2
/** Virtual sizes of typical P2WPKH transactions, to turn a fee rate into a fee. */
export const txVbytes = { send: 141, channelOpen: 154, channelClose: 169 } as const
const dustLimitSats = 546
// Separates address keys from every other use of the node key.
const addressKeyTag = utf8ToBytes('relaypay/embedded-node/address-key')

export type ChainTxKind = 'initial_funding' | 'send' | 'receive' | 'channel_open' | 'channel_close'

/** The simulated chain's height at a moment: one block per ten minutes since the genesis block. */
export function blockHeightAt(nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - genesisBlockTimeMs) / blockIntervalMs))
}

/**
 * The key behind address number `index`: sha256(tag || node key || index as u32 big-endian). There is no BIP-32
 * here (@scure/bip32 is not a dependency); the hash chain is as deterministic and one-way, and the node key
 * restores every address. Not a standard wallet derivation: other wallets will not find these addresses.
 */
export function addressSecretKey(nodeKey: Uint8Array, index: number): Uint8Array {
  const indexBytes = new Uint8Array(4)
  new DataView(indexBytes.buffer).setUint32(0, index)
  const key = sha256(concatBytes(addressKeyTag, nodeKey, indexBytes))
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error(`address key ${index} is out of range`)
  return key
}

export function addressFor(type: AddressType, secretKey: Uint8Array, params: NetworkParams): string {
  const publicKey = secp256k1.getPublicKey(secretKey, true)
  const chain = params.chain
  switch (type) {
    case 'WITNESS_PUBKEY_HASH':
      return p2wpkh(publicKey, chain).address!
    case 'NESTED_PUBKEY_HASH':
      return p2sh(p2wpkh(publicKey, chain), chain).address!
    case 'TAPROOT_PUBKEY':
      // BIP-86 style: key-path only, the x-only key tweaked with an empty script tree.
      return p2tr(publicKey.slice(1), undefined, chain).address!
  }
}

export interface ChainWalletDeps {
  db: Db
  nodeKey: Uint8Array
  params: NetworkParams
  clock: Clock
  random(bytes: number): Uint8Array
}

export type ChainWallet = ReturnType<typeof chainWallet>

export function chainWallet({ db, nodeKey, params, clock, random }: ChainWalletDeps) {
  const nextIndex = db.prepare('SELECT COALESCE(MAX(derivation_index) + 1, 0) AS n FROM node_addresses')
  const insertAddress = db.prepare(`INSERT INTO node_addresses (derivation_index, address_type, address, created_at)
                                    VALUES (@index, @type, @address, @createdAt)`)
  const findAddress = db.prepare('SELECT 1 FROM node_addresses WHERE address = ?')
  const insertTx = db.prepare(`INSERT INTO node_chain_txs
      (txid, kind, delta_sats, fee_sats, sat_per_vbyte, address, broadcast_height, created_at)
      VALUES (@txid, @kind, @deltaSats, @feeSats, @satPerVbyte, @address, @height, @createdAt)`)
  const findTx = db.prepare('SELECT txid, broadcast_height AS height FROM node_chain_txs WHERE txid = ?')
  const updateFeeRate = db.prepare('UPDATE node_chain_txs SET sat_per_vbyte = @satPerVbyte WHERE txid = @txid')
  const countTxs = db.prepare('SELECT COUNT(*) AS n FROM node_chain_txs')
  const sums = db.prepare(`SELECT
      COALESCE(SUM(CASE WHEN delta_sats < 0 OR broadcast_height < @height THEN delta_sats END), 0) AS confirmed,
      COALESCE(SUM(CASE WHEN delta_sats > 0 AND broadcast_height >= @height THEN delta_sats END), 0) AS unconfirmed
    FROM node_chain_txs`)

  const newTxid = () => bytesToHex(sha256(random(32)))

  const wallet = {
    newAddress: db.transaction((type: AddressType): string => {
      const index = (nextIndex.get() as { n: number }).n
      const address = addressFor(type, addressSecretKey(nodeKey, index), params)
      insertAddress.run({ index, type, address, createdAt: clock.now() })
      return address
    }),

    /** invalid_input unless `address` is a valid address of this network. */
    assertAddress(address: string): void {
      try {
        Address(params.chain).decode(address)
      } catch {
        throw new OperationError('invalid_input', `invalid address for network ${params.name}: ${address}`)
      }
    },

    isOwnAddress(address: string): boolean {
      return findAddress.get(address) !== undefined
    },

    balances(): { confirmedSats: number; unconfirmedSats: number } {
      const row = sums.get({ height: blockHeightAt(clock.now()) }) as { confirmed: number; unconfirmed: number }
      return { confirmedSats: row.confirmed, unconfirmedSats: row.unconfirmed }
    },

    /** Gives a fresh wallet its starting coins; a no-op once the wallet has any transaction. */
    fundIfEmpty(): void {
      if ((countTxs.get() as { n: number }).n > 0) return
      // Counted as mined long ago, so the coins are spendable at once.
      wallet.record('initial_funding', { deltaSats: initialWalletBalanceSats, feeSats: 0, satPerVbyte: 0, height: 0 })
    },

    /** Records a transaction that spends `amountSats` plus its fee; insufficient_balance when it cannot. */
    spend(
      kind: 'send' | 'channel_open',
      amountSats: number,
      opts: { vbytes: number; satPerVbyte?: number; address?: string },
    ): ChainSend {
      const satPerVbyte = opts.satPerVbyte || defaultSatPerVbyte
      const feeSats = satPerVbyte * opts.vbytes
      if (wallet.balances().confirmedSats < amountSats + feeSats) {
        // LND's wording (lnwallet: ErrInsufficientFunds).
        throw new OperationError('insufficient_balance', 'insufficient funds available to construct transaction')
      }
      const deltaSats = -(amountSats + feeSats)
      return { txid: wallet.record(kind, { deltaSats, feeSats, satPerVbyte, address: opts.address }), feeSats }
    },

    record(
      kind: ChainTxKind,
      tx: { deltaSats: number; feeSats: number; satPerVbyte: number; address?: string; height?: number },
    ): string {
      const txid = newTxid()
      const now = clock.now()
      insertTx.run({
        txid,
        kind,
        deltaSats: tx.deltaSats,
        feeSats: tx.feeSats,
        satPerVbyte: tx.satPerVbyte,
        address: tx.address ?? null,
        height: tx.height ?? blockHeightAt(now),
        createdAt: now,
      })
      return txid
    },

    send: db.transaction((request: SendToAddressRequest): ChainSend => {
      wallet.assertAddress(request.address)
      assertSats(request.amountSats, 'amountSats')
      if (request.amountSats < dustLimitSats) throw new OperationError('invalid_input', 'transaction output is dust')
      const sent = wallet.spend('send', request.amountSats, {
        vbytes: txVbytes.send,
        satPerVbyte: request.satPerVbyte,
        address: request.address,
      })
      // Coins sent to ourselves come back as an incoming transaction, unconfirmed until the next block.
      if (wallet.isOwnAddress(request.address)) {
        const received = { deltaSats: request.amountSats, feeSats: 0, satPerVbyte: 0, address: request.address }
        wallet.record('receive', received)
      }
      return sent
    }),

    bumpFee(txid: string, outputIndex: number, satPerVbyte: number): void {
      if (!Number.isSafeInteger(satPerVbyte) || satPerVbyte <= 0) {
        throw new OperationError('invalid_input', 'sat_per_vbyte must be greater than 0')
      }
      if (!Number.isSafeInteger(outputIndex) || outputIndex < 0) {
        throw new OperationError('invalid_input', 'output index must be a non-negative integer')
      }
      const tx = findTx.get(txid) as { txid: string; height: number } | undefined
      // LND's wording (walletrpc BumpFee on an outpoint it does not know).
      if (!tx) throw new OperationError('not_found', 'the passed output does not belong to the wallet')
      if (tx.height < blockHeightAt(clock.now())) {
        throw new OperationError('conflict', 'the transaction is already confirmed')
      }
      updateFeeRate.run({ txid, satPerVbyte })
    },
  }
  return wallet
}

export function assertSats(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new OperationError('invalid_input', `${name} must be a positive integer number of sats`)
  }
}
