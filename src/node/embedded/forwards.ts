// Forwarding history of the embedded node. Nothing is routed through a simulated channel on its own, so forwards
// appear only through the mock control, which moves the two channels' balances the way a real forward would.
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { ForwardingHistoryRequest, NodeForward, NodeMockControls } from '../lightning-node.js'
import type { ChannelBook } from './channels.js'

type ForwardInput = Parameters<NodeMockControls['recordForward']>[0]

interface ForwardRow {
  at: number
  incoming_channel_id: string
  outgoing_channel_id: string
  amount_in_msat: number
  amount_out_msat: number
  fee_msat: number
}

export type ForwardLog = ReturnType<typeof forwardLog>

export function forwardLog({ db, channels, clock }: { db: Db; channels: ChannelBook; clock: Clock }) {
  const insert = db.prepare(`INSERT INTO node_forwards
      (at, incoming_channel_id, outgoing_channel_id, amount_in_msat, amount_out_msat, fee_msat)
      VALUES (@at, @incomingChannelId, @outgoingChannelId, @amountInMsat, @amountOutMsat, @feeMsat)`)
  const between = db.prepare('SELECT * FROM node_forwards WHERE at >= ? AND at < ? ORDER BY at, id')

  return {
    history(request: ForwardingHistoryRequest): NodeForward[] {
      if (!Number.isSafeInteger(request.fromMs) || !Number.isSafeInteger(request.toMs)) {
        throw new OperationError('invalid_input', 'fromMs and toMs must be integers')
      }
      return (between.all(request.fromMs, request.toMs) as ForwardRow[]).map(row => ({
        at: row.at,
        incomingChannelId: row.incoming_channel_id,
        outgoingChannelId: row.outgoing_channel_id,
        amountInMsat: row.amount_in_msat,
        amountOutMsat: row.amount_out_msat,
        feeMsat: row.fee_msat,
      }))
    },

    /** The peer on the incoming channel pays amount + fee to us; we pay the amount on to the outgoing peer. */
    record: db.transaction((forward: ForwardInput): NodeForward => {
      const { amountOutMsat, feeMsat } = forward
      if (!Number.isSafeInteger(amountOutMsat) || amountOutMsat <= 0) {
        throw new OperationError('invalid_input', 'amountOutMsat must be a positive integer')
      }
      if (!Number.isSafeInteger(feeMsat) || feeMsat < 0) {
        throw new OperationError('invalid_input', 'feeMsat must be a non-negative integer')
      }
      if (forward.incomingChannelId === forward.outgoingChannelId) {
        throw new OperationError('invalid_input', 'a forward goes through two different channels')
      }
      const incoming = channels.openChannelRow(forward.incomingChannelId)
      const outgoing = channels.openChannelRow(forward.outgoingChannelId)
      if (!incoming || !outgoing) throw new OperationError('not_found', 'channel not found')
      const amountInMsat = amountOutMsat + feeMsat
      if (incoming.remote_balance_msat < amountInMsat || outgoing.local_balance_msat < amountOutMsat) {
        throw new OperationError('insufficient_balance', 'the channels lack the liquidity for this forward')
      }
      channels.setBalances(
        incoming.channel_id,
        incoming.local_balance_msat + amountInMsat,
        incoming.remote_balance_msat - amountInMsat,
      )
      channels.setBalances(
        outgoing.channel_id,
        outgoing.local_balance_msat - amountOutMsat,
        outgoing.remote_balance_msat + amountOutMsat,
      )
      const row = {
        at: clock.now(),
        incomingChannelId: incoming.channel_id,
        outgoingChannelId: outgoing.channel_id,
        amountInMsat,
        amountOutMsat,
        feeMsat,
      }
      insert.run(row)
      return row
    }),
  }
}
