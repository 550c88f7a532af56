// LND's on-chain wallet: fresh addresses, sends, balances, and fee bumps through the walletrpc sub-server.
import {
  createChainAddress,
  getChainBalance,
  getChainFeeEstimate,
  getChainTransaction,
  getChainTransactions,
  getChannelBalance,
  getPendingChainBalance,
  requestChainFeeIncrease,
  sendToChainAddress,
  type AuthenticatedLnd,
} from 'lightning'
import { OperationError } from '../../bus/index.js'
import type {
  AddressType,
  BumpFeeRequest,
  ChainFeeEstimate,
  ChainFeeEstimateRequest,
  ChainSend,
  NodeBalances,
  SendToAddressRequest,
} from '../lightning-node.js'
import { describeLndFailure, lndError } from './lnd-errors.js'

const addressFormats: Record<AddressType, 'p2wpkh' | 'np2wpkh' | 'p2tr'> = {
  WITNESS_PUBKEY_HASH: 'p2wpkh',
  NESTED_PUBKEY_HASH: 'np2wpkh',
  TAPROOT_PUBKEY: 'p2tr',
}

/**
 * LND's refusals of an address (rpcserver.go): btcutil's decoding errors ("invalid character not part of charset: 111",
 * "decoded address is of unknown format", "invalid checksum", "invalid separator index", "invalid bech32 string
 * length") and "address: … is not valid for this network".
 */
const addressRefused = /address|network|checksum|bech32|base58|charset|separator|string length/i

export function lndChain({ lnd }: { lnd: AuthenticatedLnd }) {
  /** The fee LND's wallet paid for one of its transactions. */
  const feeOf = async (txid: string): Promise<number> => {
    try {
      return (await getChainTransaction({ lnd, id: txid })).fee ?? 0
    } catch (err) {
      // walletrpc.GetTransaction is newer than GetTransactions; an older LND lists them all instead.
      if (describeLndFailure(err).status !== 501) throw err
      const { transactions } = await getChainTransactions({ lnd })
      return transactions.find(tx => tx.id === txid)?.fee ?? 0
    }
  }

  return {
    async newAddress(type: AddressType): Promise<string> {
      const format = addressFormats[type]
      if (!format) throw new OperationError('invalid_input', `unknown address type ${String(type)}`)
      try {
        return (await createChainAddress({ lnd, format })).address
      } catch (err) {
        throw lndError('create an address', err, [
          { when: /Taproot/, code: 'not_implemented', message: 'this LND cannot create taproot addresses' },
        ])
      }
    },

    async sendToAddress(request: SendToAddressRequest): Promise<ChainSend> {
      if (!Number.isSafeInteger(request.amountSats) || request.amountSats <= 0) {
        throw new OperationError('invalid_input', 'amountSats must be a positive integer')
      }
      const satPerVbyte = request.satPerVbyte ?? 0
      if (!Number.isSafeInteger(satPerVbyte) || satPerVbyte < 0) {
        throw new OperationError('invalid_input', 'satPerVbyte must be a non-negative integer')
      }
      let txid: string
      try {
        const sent = await sendToChainAddress({
          lnd,
          address: request.address,
          tokens: request.amountSats,
          ...(satPerVbyte > 0 ? { fee_tokens_per_vbyte: satPerVbyte } : {}),
        })
        txid = sent.id
      } catch (err) {
        throw lndError('send coins', err, [
          { when: /InsufficientBalance|insufficient funds/, code: 'insufficient_balance', message: 'insufficient funds available to construct transaction' },
          { when: addressRefused, code: 'invalid_input' },
        ])
      }
      try {
        return { txid, feeSats: await feeOf(txid) }
      } catch (err) {
        throw lndError('report the fee of its transaction', err)
      }
    },

    async estimateChainFee(request: ChainFeeEstimateRequest): Promise<ChainFeeEstimate> {
      if (!Number.isSafeInteger(request.amountSats) || request.amountSats <= 0) {
        throw new OperationError('invalid_input', 'amountSats must be a positive integer')
      }
      try {
        const estimate = await getChainFeeEstimate({
          lnd,
          send_to: [{ address: request.address, tokens: request.amountSats }],
          ...(request.targetConf ? { target_confirmations: request.targetConf } : {}),
        })
        return { feeSats: estimate.fee, satPerVbyte: estimate.tokens_per_vbyte }
      } catch (err) {
        throw lndError('estimate a chain fee', err, [
          { when: /InsufficientBalance|insufficient funds/, code: 'insufficient_balance', message: 'insufficient funds available to construct transaction' },
          { when: addressRefused, code: 'invalid_input' },
        ])
      }
    },

    async getBalances(): Promise<NodeBalances> {
      try {
        const [confirmed, pending, channels] = await Promise.all([
          getChainBalance({ lnd }),
          getPendingChainBalance({ lnd }),
          getChannelBalance({ lnd }),
        ])
        return {
          chainBalanceSats: confirmed.chain_balance,
          unconfirmedChainBalanceSats: pending.pending_chain_balance,
          channelsLocalMsat: Number(channels.channel_balance_mtokens ?? channels.channel_balance * 1000),
          channelsRemoteMsat: Number(channels.inbound_mtokens ?? (channels.inbound ?? 0) * 1000),
        }
      } catch (err) {
        throw lndError('report its balances', err)
      }
    },

    async bumpFee(request: BumpFeeRequest): Promise<void> {
      if (!/^[0-9a-fA-F]{64}$/.test(request.txid)) throw new OperationError('invalid_input', 'txid must be 32 bytes of hex')
      if (!Number.isSafeInteger(request.outputIndex) || request.outputIndex < 0) {
        throw new OperationError('invalid_input', 'outputIndex must be a non-negative integer')
      }
      if (!Number.isSafeInteger(request.satPerVbyte) || request.satPerVbyte <= 0) {
        throw new OperationError('invalid_input', 'satPerVbyte must be a positive integer')
      }
      try {
        await requestChainFeeIncrease({
          lnd,
          transaction_id: request.txid.toLowerCase(),
          transaction_vout: request.outputIndex,
          fee_tokens_per_vbyte: request.satPerVbyte,
        })
      } catch (err) {
        throw lndError('bump the fee', err, [
          {
            when: /SpecifiedOutpointNotFoundInWalletUtxos/,
            code: 'not_found',
            message: `LND's wallet has no unspent output ${request.txid}:${request.outputIndex} to bump`,
          },
          {
            when: /unknown service walletrpc|unknown method BumpFee|does not implement the method/i,
            code: 'not_implemented',
            message: 'this LND has no walletrpc sub-server (build tag walletrpc), which fee bumping needs',
          },
        ])
      }
    },
  }
}
