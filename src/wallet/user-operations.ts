// The UserOperation records upstream attaches to payment answers and live pushes (docs/pub-protocol.md,
// "Money"): amounts in sats, `paidAtUnix` 0 while pending and -1 after a failure.
import type { z } from 'zod'
import type { UserOperation as UserOperationMessage } from '../../schema/messages/operations.js'
import { msatAsSats, unixSeconds } from '../units/index.js'

export type UserOperation = z.input<typeof UserOperationMessage>
export type UserOperationType = UserOperation['type']

export interface OperationFacts {
  type: UserOperationType
  serial: number
  amountMsat: number
  /** Invoice, address, or counterpart user id. */
  identifier: string
  /** Unix ms; `pending` and `failed` become upstream's 0 and -1. */
  paidAt: number | 'pending' | 'failed'
  serviceFeeMsat?: number
  networkFeeMsat?: number
  internal: boolean
  txHash?: string
}

const inboundTypes: readonly UserOperationType[] = ['INCOMING_INVOICE', 'INCOMING_TX', 'INCOMING_USER_TO_USER']

export const operationId = (type: UserOperationType, serial: number) => `${type}-${serial}`

export function userOperation(facts: OperationFacts): UserOperation {
  return {
    paidAtUnix: facts.paidAt === 'pending' ? 0 : facts.paidAt === 'failed' ? -1 : unixSeconds(facts.paidAt),
    type: facts.type,
    inbound: inboundTypes.includes(facts.type),
    amount: msatAsSats(facts.amountMsat),
    identifier: facts.identifier,
    operationId: operationId(facts.type, facts.serial),
    service_fee: msatAsSats(facts.serviceFeeMsat ?? 0),
    network_fee: msatAsSats(facts.networkFeeMsat ?? 0),
    confirmed: true,
    tx_hash: facts.txHash ?? '',
    internal: facts.internal,
  }
}
