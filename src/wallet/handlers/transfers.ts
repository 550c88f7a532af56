// Wallet-to-wallet transfers: app user to app user, app user to the app, and a
// payment to an on-chain address this service issued. One transaction each: both wallets unlocked, the sender
// debited amount + fee, the receiver credited, the fee collector paid, the row written.
import { OperationError, type DomainEvent, type HandlerTable } from '../../bus/index.js'
import type { SqlExecutor } from '../../store/index.js'
import type { AccountStore } from '../accounts.js'
import { appUserOf, appUserOrCreate } from '../app-users.js'
import type { FeeCollectors } from '../fee-collectors.js'
import type { GroupCommit } from '../group-commit.js'
import type { FeePolicy } from '../fees.js'
import { lockWallets, userAccount, type Leg, type Ledger } from '../ledger.js'
import { positiveSatsAsMsat } from '../msat.js'
import { msatAsSats, msatPerSat } from '../../units/index.js'
import type { OutgoingGate } from '../payments/outgoing-gate.js'
import { refusals } from '../payments/store.js'
import { userOperation } from '../user-operations.js'

export interface TransferTerms {
  kind: 'user' | 'address'
  fromUserId: string
  toUserId: string
  amountMsat: number
  /** With kind `address`: the address paid and the synthetic transaction hash upstream gives such payments. */
  address?: string
  txHash?: string
}

export interface TransferRow {
  serial: number
  kind: 'user' | 'address'
  from_user_id: string
  to_user_id: string
  fee_collector_user_id: string | null
  amount_msat: number
  fee_msat: number
  address: string | null
  tx_hash: string | null
  created_at: number
}

export interface TransferDeps {
  ledger: Ledger
  collectors: FeeCollectors
  fees: FeePolicy
  gate: OutgoingGate
  commits: GroupCommit
  emit(event: DomainEvent): void
  now(): number
}

const texts = {
  insert: `INSERT INTO transfers
      (kind, from_user_id, to_user_id, fee_collector_user_id, amount_msat, fee_msat, address, tx_hash, created_at)
      VALUES (@kind, @fromUserId, @toUserId, @feeCollectorId, @amountMsat, @feeMsat, @address, @txHash, @createdAt)
      RETURNING *`,
}

export function transferDesk({ ledger, collectors, fees, gate, commits, emit, now }: TransferDeps) {

  /** Internal sends cost `internal_user_fee_bps` for managed users and `internal_root_fee_bps` for app owners. */
  const feeMsatFor = async (tx: SqlExecutor, fromUserId: string, amountMsat: number) => {
    const bps = (await collectors.isAppOwner(fromUserId, tx)) ? fees.internalRootFeeBps : fees.internalUserFeeBps
    return Math.ceil((Math.ceil(amountMsat / msatPerSat) * bps) / 10_000) * msatPerSat
  }

  const move = async (tx: SqlExecutor, terms: TransferTerms) => {
    const feeMsat = await feeMsatFor(tx, terms.fromUserId, terms.amountMsat)
    const feeCollectorId = feeMsat > 0 ? await collectors.collectorFor(terms.fromUserId, tx) : null
    // Every wallet the transfer moves, locked in id order on PostgreSQL: two transfers between the same wallets in
    // opposite directions then wait for each other instead of deadlocking.
    const locked = await lockWallets(tx, [terms.fromUserId, terms.toUserId, feeCollectorId])
    if (locked.get(terms.fromUserId) !== 0) throw new OperationError('forbidden', refusals.locked)
    if (locked.get(terms.toUserId) !== 0) throw new OperationError('forbidden', 'the receiving user is locked')
    const at = now()
    const transfer = (await tx.one<TransferRow>(texts.insert, {
      kind: terms.kind,
      fromUserId: terms.fromUserId,
      toUserId: terms.toUserId,
      feeCollectorId,
      amountMsat: terms.amountMsat,
      feeMsat,
      address: terms.address ?? null,
      txHash: terms.txHash ?? null,
      createdAt: at,
    }))!
    const legs: Leg[] = [
      { account: userAccount(terms.fromUserId), amountMsat: -(terms.amountMsat + feeMsat) },
      { account: userAccount(terms.toUserId), amountMsat: terms.amountMsat },
    ]
    if (feeCollectorId) legs.push({ account: userAccount(feeCollectorId), amountMsat: feeMsat })
    const posted = await ledger.post(tx, { kind: 'transfer', ref: String(transfer.serial), legs, at })
    return {
      transfer,
      fromBalanceMsat: await ledger.balanceAfter(tx, terms.fromUserId, posted),
      toBalanceMsat: await ledger.balanceAfter(tx, terms.toUserId, posted),
    }
  }

  return {
    /** Moves money between two wallets; throws (moving nothing) on a locked wallet or too small a balance. */
    async transfer(terms: TransferTerms): Promise<TransferRow> {
      await gate.whenOpen()
      const { transfer, fromBalanceMsat, toBalanceMsat } = await commits.run(tx => move(tx, terms))
      const onChain = transfer.kind === 'address'
      const common = {
        serial: transfer.serial,
        amountMsat: transfer.amount_msat,
        paidAt: transfer.created_at,
        internal: true,
        ...(transfer.tx_hash ? { txHash: transfer.tx_hash } : {}),
      }
      emit({
        type: 'user.operation',
        userId: transfer.from_user_id,
        operation: userOperation({
          ...common,
          type: onChain ? 'OUTGOING_TX' : 'OUTGOING_USER_TO_USER',
          identifier: onChain ? transfer.address! : transfer.to_user_id,
          serviceFeeMsat: transfer.fee_msat,
        }),
        latestBalanceSats: msatAsSats(fromBalanceMsat),
      })
      emit({
        type: 'user.operation',
        userId: transfer.to_user_id,
        operation: userOperation({
          ...common,
          type: onChain ? 'INCOMING_TX' : 'INCOMING_USER_TO_USER',
          identifier: onChain ? transfer.address! : transfer.from_user_id,
        }),
        latestBalanceSats: msatAsSats(toBalanceMsat),
      })
      return transfer
    },
  }
}

export type TransferDesk = ReturnType<typeof transferDesk>

export function transferHandlers(accounts: AccountStore, desk: TransferDesk): HandlerTable {
  return {
    SendAppUserToAppUserPayment: async (input, ctx) => {
      const amountMsat = positiveSatsAsMsat(input.amount, 'amount')
      const from = await appUserOf(accounts, ctx.caller.appId, input.from_user_identifier)
      const to = await appUserOrCreate(accounts, ctx.caller.appId, input.to_user_identifier)
      await desk.transfer({ kind: 'user', fromUserId: from.user_id, toUserId: to.user_id, amountMsat })
      return {}
    },
    SendAppUserToAppPayment: async (input, ctx) => {
      const amountMsat = positiveSatsAsMsat(input.amount, 'amount')
      const from = await appUserOf(accounts, ctx.caller.appId, input.from_user_identifier)
      const app = (await accounts.appById(ctx.caller.appId))!
      await desk.transfer({ kind: 'user', fromUserId: from.user_id, toUserId: app.owner_user_id, amountMsat })
      return {}
    },
  }
}
