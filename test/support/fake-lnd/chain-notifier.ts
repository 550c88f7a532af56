// chainrpc.ChainNotifier: RegisterConfirmationsNtfn over the fake's chain (fake-chain.ts). The request's txid
// arrives in Bitcoin's internal byte order (the `lightning` client reverses the hex id), as LND expects it.
import type { FakeNode } from './fake-node.js'
import type { ServiceImpl } from './lightning-service.js'
import { grpcCode } from './rpc-error.js'

export function chainNotifierService(node: FakeNode): ServiceImpl {
  return {
    unary: {},
    streams: {
      RegisterConfirmationsNtfn: call => {
        const request = call.request
        const txid = Buffer.from(request.txid ?? []).reverse().toString('hex')
        const script = Buffer.from(request.script ?? []).toString('hex')
        const heightHint = Number(request.height_hint)
        const numConfs = Number(request.num_confs)
        if (!script) return void call.emit('error', { code: grpcCode.invalidArgument, details: 'a confirmation request needs an output script' })
        if (!(numConfs >= 1)) return void call.emit('error', { code: grpcCode.unknown, details: 'number of confirmations must be greater than 0' })
        if (/^0+$/.test(txid)) return void call.emit('error', { code: grpcCode.unimplemented, details: 'the fake watches transactions, not bare scripts' })
        const forget = () => {
          cancel()
          node.chainStreamDrops.delete(drop)
        }
        const drop = () => {
          forget()
          call.emit('error', { code: grpcCode.unavailable, details: 'fake LND dropped the stream' })
        }
        // As LND, the stream stays open after the confirmation (a reorg would be sent on it); the client ends it.
        const cancel = node.chain.watch({ txid, script, heightHint, numConfs }, tx => {
          call.write({
            conf: {
              raw_tx: Buffer.from(tx.hex, 'hex'),
              block_hash: Buffer.from(tx.block!.hash, 'hex'),
              block_height: tx.block!.height,
              tx_index: 1,
            },
          })
        })
        node.chainStreamDrops.add(drop)
        call.on('cancelled', forget)
      },
    },
  }
}
