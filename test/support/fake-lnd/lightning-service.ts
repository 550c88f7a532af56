// lnrpc.Lightning, first half: node info, invoices, payment requests, the on-chain wallet and peers. Requests
// and replies are the proto messages as @grpc/proto-loader gives them (keepCase, int64 as strings, enums as names).
import type { ServerWritableStream } from '@grpc/grpc-js'
import type { FakeNode } from './fake-node.js'
import { invoiceFeatures, type FakeInvoice } from './invoice-book.js'
import { readPaymentRequest } from './payment-request.js'
import { txAsRpc } from './chain-wallet.js'
import { grpcCode, lndSays, RpcError } from './rpc-error.js'

/** LND's default invoice expiry and its memo limit (lnrpc AddInvoice). */
const defaultInvoiceExpirySec = 3600
const maxMemoBytes = 1024

export type Unary = (request: any) => unknown
export type ServerStream = (call: ServerWritableStream<any, any>) => void
export interface ServiceImpl {
  unary: Record<string, Unary>
  streams: Record<string, ServerStream>
}

export function lightningService(node: FakeNode): ServiceImpl {
  const { invoices, wallet, channels } = node
  const nowSec = () => Math.floor(node.now() / 1000)
  // Live-only subscriptions held back by faults.lateLiveInvoiceStream until a list has been answered.
  const afterNextList: (() => void)[] = []

  return {
    unary: {
      GetInfo: () => ({
        version: '0.20.1-beta commit=v0.20.1-beta',
        commit_hash: '848b72ce96eb68fa90fd4336523ca4c59bddcd4c',
        identity_pubkey: node.pubkey,
        alias: node.alias,
        color: '#3399ff',
        num_pending_channels: 0,
        num_active_channels: channels.open.length,
        num_inactive_channels: 0,
        num_peers: channels.peers.size,
        block_height: node.blockHeight(),
        block_hash: node.blockHash,
        best_header_timestamp: nowSec(),
        synced_to_chain: true,
        synced_to_graph: true,
        chains: [{ chain: 'bitcoin', network: node.network.lndName }],
        uris: [],
        features: invoiceFeatures,
      }),

      AddInvoice: request => {
        const valueMsat = Number(request.value_msat) || Number(request.value) * 1000
        if (Number(request.value_msat) > 0 && Number(request.value) > 0) {
          throw lndSays('both value and value_msat are set')
        }
        if (Buffer.byteLength(request.memo ?? '', 'utf8') > maxMemoBytes) {
          throw lndSays(`memo too large: ${Buffer.byteLength(request.memo, 'utf8')} bytes (maxsize=${maxMemoBytes})`)
        }
        const descriptionHash: Buffer = request.description_hash ?? Buffer.alloc(0)
        if (descriptionHash.length !== 0 && descriptionHash.length !== 32) {
          throw lndSays('description hash is 32 bytes, got ' + descriptionHash.length)
        }
        const preimage: Buffer = request.r_preimage ?? Buffer.alloc(0)
        const invoice = invoices.add({
          valueMsat,
          memo: request.memo ?? '',
          descriptionHash,
          expirySec: Number(request.expiry) || defaultInvoiceExpirySec,
          ...(preimage.length > 0 ? { preimage } : {}),
          private: request.private === true,
        })
        return {
          r_hash: Buffer.from(invoice.paymentHash, 'hex'),
          payment_request: invoice.request,
          add_index: invoice.addIndex,
          payment_addr: invoice.paymentAddr,
        }
      },

      LookupInvoice: request => {
        const hash = request.r_hash_str || Buffer.from(request.r_hash ?? []).toString('hex')
        const invoice = invoices.lookup(hash)
        // LND 0.15+: codes.NotFound with the invoice registry's words.
        if (!invoice) throw new RpcError(grpcCode.notFound, 'unable to locate invoice')
        return invoices.asRpc(invoice)
      },

      ListInvoices: request => {
        const page = invoices.list({
          pendingOnly: request.pending_only === true,
          indexOffset: Number(request.index_offset),
          max: Number(request.num_max_invoices),
          reversed: request.reversed === true,
        })
        node.traffic.invoicesListed += page.length
        for (const late of afterNextList.splice(0)) setImmediate(late)
        return {
          invoices: page.map(invoices.asRpc),
          first_index_offset: page[0]?.addIndex ?? 0,
          last_index_offset: page.at(-1)?.addIndex ?? 0,
        }
      },

      DecodePayReq: request => {
        const read = readPaymentRequest(request.pay_req ?? '', node.network.invoice, node.network.lndName)
        return {
          destination: read.destination,
          payment_hash: read.paymentHash,
          num_satoshis: Math.floor(read.amountMsat / 1000),
          timestamp: read.timestampSec,
          expiry: read.expirySec,
          description: read.description,
          description_hash: read.descriptionHash,
          fallback_addr: '',
          cltv_expiry: read.cltvExpiry,
          route_hints: [],
          payment_addr: read.paymentAddr,
          num_msat: read.amountMsat,
          features: invoiceFeatures,
          blinded_paths: [],
        }
      },

      NewAddress: request => {
        const type = String(request.type).replace(/^UNUSED_/, '')
        if (type !== 'WITNESS_PUBKEY_HASH' && type !== 'NESTED_PUBKEY_HASH' && type !== 'TAPROOT_PUBKEY') {
          throw lndSays(`unknown address type ${request.type}`)
        }
        return { address: wallet.newAddress(type) }
      },

      SendCoins: request => {
        if (request.send_all) throw lndSays('send_all is not supported by the fake')
        const tx = wallet.send(request.addr, Number(request.amount), Number(request.sat_per_vbyte))
        return { txid: tx.txid }
      },

      EstimateFee: request => {
        const targets = Object.entries(request.AddrToAmount ?? {})
        if (targets.length === 0) throw lndSays('must specify at least one output')
        const { feeSats, satPerVbyte } = wallet.estimate(targets.map(([address]) => address))
        const total = targets.reduce((sum, [, sats]) => sum + Number(sats), 0)
        if (total + feeSats > wallet.balances().confirmedSats) {
          throw lndSays('insufficient funds available to construct transaction')
        }
        return { fee_sat: String(feeSats), feerate_sat_per_byte: String(satPerVbyte), sat_per_vbyte: String(satPerVbyte) }
      },

      WalletBalance: () => {
        const { confirmedSats, unconfirmedSats } = wallet.balances()
        return {
          total_balance: confirmedSats + unconfirmedSats,
          confirmed_balance: confirmedSats,
          unconfirmed_balance: unconfirmedSats,
          locked_balance: 0,
          reserved_balance_anchor_chan: 0,
          account_balance: {},
        }
      },

      GetTransactions: () => ({
        transactions: wallet.list().map(tx => txAsRpc(tx, node.blockHeight())),
        last_index: 0,
        first_index: 0,
      }),

      ConnectPeer: request => {
        const pubkey = String(request.addr?.pubkey ?? '')
        if (!/^0[23][0-9a-f]{64}$/.test(pubkey)) throw lndSays(`invalid pubkey ${pubkey}`)
        channels.connect(pubkey, String(request.addr?.host ?? ''))
        return { status: 'connection to ' + pubkey + ' initiated' }
      },

      ListPeers: () => ({
        peers: [...channels.peers].map(([pubkey, peer]) => ({
          pub_key: pubkey,
          address: peer.address,
          bytes_sent: 0,
          bytes_recv: 0,
          sat_sent: 0,
          sat_recv: 0,
          inbound: false,
          ping_time: 1000,
          sync_type: 'ACTIVE_SYNC',
          features: invoiceFeatures,
          errors: [],
          flap_count: 0,
          last_flap_ns: 0,
        })),
      }),
    },

    streams: {
      // Replays adds above add_index and settlements above settle_index, then streams live until dropped.
      SubscribeInvoices: call => {
        if (node.faults.refuseInvoiceStreams) {
          call.emit('error', { code: grpcCode.unavailable, details: 'fake LND refuses invoice streams for now' })
          return
        }
        const addIndex = Number(call.request.add_index)
        const settleIndex = Number(call.request.settle_index)
        let stop = () => {}
        const register = () => {
          const write = (invoice: FakeInvoice) => call.write(invoices.asRpc(invoice))
          const subscribed = invoices.subscribe(addIndex, settleIndex, write, {
            settledInAddOrder: node.faults.replaySettledInAddOrder,
            hidden: node.faults.hiddenFromReplay,
          })
          stop = subscribed.stop
          node.traffic.invoicesReplayed += subscribed.replayed
        }
        const forget = () => {
          stop()
          node.invoiceStreamDrops.delete(drop)
        }
        const drop = () => {
          forget()
          call.emit('error', { code: grpcCode.unavailable, details: 'fake LND dropped the stream' })
        }
        node.invoiceStreamDrops.add(drop)
        call.on('cancelled', forget)
        const late = node.faults.lateLiveInvoiceStream
        if (late && addIndex === 0 && settleIndex === 0) {
          node.faults.lateLiveInvoiceStream = undefined
          afterNextList.push(() => late(register))
        } else register()
      },
    },
  }
}
