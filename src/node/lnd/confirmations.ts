// Our own node's word on the chain: LND's ChainNotifier (RegisterConfirmationsNtfn, through the `lightning`
// package's subscribeToChainAddress) tells when a transaction paying a script has a confirmation. Swaps rely on
// it instead of a provider's claims before revealing a preimage. LND looks back from the height hint first, so a
// transaction confirmed while nobody watched is reported at once.
import { broadcastChainTransaction, subscribeToChainAddress, type AuthenticatedLnd } from 'lightning'
import { OperationError } from '../../bus/index.js'
import type { ChainConfirmation, ConfirmationRequest } from '../lightning-node.js'
import { lndError } from './lnd-errors.js'

const hex = /^[0-9a-f]*$/i

export function lndConfirmations({ lnd }: { lnd: AuthenticatedLnd }) {
  return {
    waitForConfirmation(request: ConfirmationRequest, signal: AbortSignal): Promise<ChainConfirmation> {
      if (!/^[0-9a-fA-F]{64}$/.test(request.txid)) return Promise.reject(new OperationError('invalid_input', 'txid must be 32 bytes of hex'))
      if (!request.outputScript || !hex.test(request.outputScript)) {
        return Promise.reject(new OperationError('invalid_input', 'outputScript must be hex'))
      }
      if (!Number.isSafeInteger(request.heightHint) || request.heightHint < 1) {
        return Promise.reject(new OperationError('invalid_input', 'heightHint must be a positive block height'))
      }
      if (signal.aborted) return Promise.reject(signal.reason)
      return new Promise<ChainConfirmation>((resolve, reject) => {
        let sub: ReturnType<typeof subscribeToChainAddress>
        try {
          sub = subscribeToChainAddress({
            lnd,
            output_script: request.outputScript.toLowerCase(),
            transaction_id: request.txid.toLowerCase(),
            min_confirmations: 1,
            min_height: request.heightHint,
          })
        } catch (err) {
          return reject(lndError('watch the chain', err))
        }
        // Removing the confirmation listener cancels the gRPC stream (the library watches its listener count).
        const finish = (outcome: () => void) => {
          signal.removeEventListener('abort', onAbort)
          sub.removeListener('confirmation', onConfirmation)
          sub.removeListener('error', onError)
          sub.removeListener('end', onEnd)
          outcome()
        }
        const onConfirmation = (event: { block: string; height: number; transaction: string }) =>
          finish(() => resolve({ blockHeight: event.height, blockHash: event.block, rawTx: event.transaction }))
        const onError = (err: unknown) =>
          finish(() =>
            reject(
              lndError('watch the chain', err, [
                {
                  when: /unknown service chainrpc|ExpectedLndGrpcApiToSubscribe/i,
                  code: 'not_implemented',
                  message: 'this LND has no chainrpc sub-server (build tag chainrpc), which watching for confirmations needs',
                },
              ]),
            ),
          )
        const onEnd = () => finish(() => reject(new OperationError('node_unavailable', 'LND ended the confirmation stream')))
        const onAbort = () => finish(() => reject(signal.reason))
        sub.on('confirmation', onConfirmation)
        sub.on('error', onError)
        sub.on('end', onEnd)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    },

    async publishTransaction(rawTx: string): Promise<string> {
      if (!rawTx || !hex.test(rawTx) || rawTx.length % 2 !== 0) throw new OperationError('invalid_input', 'the transaction must be hex')
      try {
        return (await broadcastChainTransaction({ lnd, transaction: rawTx.toLowerCase() })).id
      } catch (err) {
        throw lndError('publish a transaction', err, [
          {
            when: /unknown service walletrpc|unknown method PublishTransaction/i,
            code: 'not_implemented',
            message: 'this LND has no walletrpc sub-server (build tag walletrpc), which publishing a transaction needs',
          },
        ])
      }
    },
  }
}
