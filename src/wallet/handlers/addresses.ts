// On-chain addresses: NewAddress gives each (user, app, address type) one reusable address from the node, and
// PayAddress to an address this service issued is an instant internal transfer, as upstream makes it. Paying any other
// address goes through a transaction swap, which needs a quote first.
import { bytesToHex } from '@noble/hashes/utils.js'
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { SqlStore } from '../../store/index.js'
import type { Random } from '../accounts.js'
import { positiveSatsAsMsat } from '../msat.js'
import { msatAsSats } from '../../units/index.js'
import type { TransferDesk } from './transfers.js'
import { operationId } from '../user-operations.js'

interface AddressRow {
  serial: number
  address: string
  user_id: string
  app_id: string
  address_type: string
  created_at: number
}

/** Pays an outside address through a quoted transaction swap (the swaps room, attached by the daemon). */
export interface AddressSwapPayer {
  payAddress(
    userId: string,
    request: { address: string; amountSats: number; swapOperationId: string },
  ): Promise<{ txId: string; operationId: string; serviceFeeSats: number; networkFeeSats: number }>
}

export interface AddressDeps {
  sql: SqlStore
  node: LightningNode
  transfers: TransferDesk
  random: Random
  now(): number
  /** The swaps room when it is running; absent, outside addresses are refused with the reason. */
  swaps(): AddressSwapPayer | undefined
}

export const swapNeededReason =
  'this address does not belong to this service: paying it needs a transaction swap quote (GetTransactionSwapQuotes) and its swap_operation_id'

const addressTexts = {
  existing: 'SELECT * FROM addresses WHERE user_id = ? AND app_id = ? AND address_type = ?',
  insert: `INSERT INTO addresses (address, user_id, app_id, address_type, created_at)
      VALUES (@address, @userId, @appId, @type, @createdAt) ON CONFLICT (user_id, app_id, address_type) DO NOTHING`,
  byAddress: 'SELECT * FROM addresses WHERE address = ?',
}

export function addressHandlers({ sql, node, transfers, random, now, swaps }: AddressDeps): HandlerTable {
  const existing = (userId: string, appId: string, type: string) =>
    sql.one<AddressRow>(addressTexts.existing, [userId, appId, type])

  return {
    NewAddress: async (input, ctx) => {
      const { userId, appId } = ctx.caller
      const found = await existing(userId, appId, input.addressType)
      if (found) return { address: found.address }
      const address = await node.newAddress(input.addressType)
      // Two first calls may race past the lookup; the unique key keeps the first address and both answer it.
      await sql.run(addressTexts.insert, { address, userId, appId, type: input.addressType, createdAt: now() })
      return { address: (await existing(userId, appId, input.addressType))!.address }
    },

    PayAddress: async (input, ctx) => {
      const amountMsat = positiveSatsAsMsat(input.amountSats, 'amountSats')
      const target = await sql.one<AddressRow>(addressTexts.byAddress, [input.address.trim()])
      if (!target) {
        if (!input.swap_operation_id) throw new OperationError('invalid_input', swapNeededReason)
        const desk = swaps()
        if (!desk) throw new OperationError('not_implemented', 'transaction swaps are not part of this daemon')
        const paid = await desk.payAddress(ctx.caller.userId, {
          address: input.address.trim(),
          amountSats: input.amountSats,
          swapOperationId: input.swap_operation_id,
        })
        return {
          txId: paid.txId,
          operation_id: paid.operationId,
          service_fee: paid.serviceFeeSats,
          network_fee: paid.networkFeeSats,
        }
      }
      // Upstream records an internal chain payment under a random 32-byte transaction hash.
      const txHash = bytesToHex(random(32))
      const transfer = await transfers.transfer({
        kind: 'address',
        fromUserId: ctx.caller.userId,
        toUserId: target.user_id,
        amountMsat,
        address: target.address,
        txHash,
      })
      return {
        txId: txHash,
        operation_id: operationId('OUTGOING_TX', transfer.serial),
        service_fee: msatAsSats(transfer.fee_msat),
        network_fee: 0,
      }
    },
  }
}
