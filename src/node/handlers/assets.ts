// What the operator owes against what the node holds: GetAssetsAndLiabilitiesV2 (each list of the node's operations
// a page with its cursor) and the first version, now answered through the second with fixed bounds so that a node
// with a long history answers in bounded time. Each operation the wallets booked is tracked as USER with its
// wallet; one they did not is left untracked: money that moved outside the wallets. ROOT (an operation of the
// operator's own, in upstream's books) is never set: relaypay keeps no such books.
import type { z } from 'zod'
import type { Handler, HandlerTable, InputOf } from '../../bus/index.js'
import type { AssetOperation, LndAssetOperationsPage, TrackedLndProviderV2 } from '../../../schema/messages/node.js'
import type { HistoryPage, LightningNode, NodeInfo } from '../lightning-node.js'
import { msatAsSats } from '../../units/index.js'
import { requireNonNegative } from './input-rules.js'

/** A wallet's record of an operation: its owner, when it was paid (unix seconds), the amount in sats. */
export interface BookedOperation {
  userId: string
  ts: number
  amountSats: number
}

/** What the wallets' books say of the node's operations, by payment hash. */
export interface OperationBooks {
  invoices(paymentHashes: readonly string[]): Promise<Map<string, BookedOperation>>
  payments(paymentHashes: readonly string[]): Promise<Map<string, BookedOperation>>
  /** What the wallets that are not locked hold, in msat: the liabilities. */
  unlockedBalanceMsat(): Promise<number>
}

type LndFilter = InputOf<'GetAssetsAndLiabilitiesV2'>['lnd_providers'][number]
// The messages' own types: an optional field's input type is unknown (it is read through a preprocess).
type Tracked = z.output<typeof TrackedLndProviderV2>
type Page = z.output<typeof LndAssetOperationsPage>
type Operation = z.output<typeof AssetOperation>

/** Upstream's page sizes: 20 unless asked; never below 1 (an explicit 0 is 1) or above 50. */
const pageSize = (limit: number | undefined, fallback = 20) => Math.min(50, Math.max(1, limit ?? fallback))

const tracked = (booked: BookedOperation | undefined): Pick<Operation, 'tracked'> =>
  booked ? { tracked: { ts: booked.ts, amount: booked.amountSats, type: 'USER', user_id: booked.userId } } : {}

/** A Lightning page: a full window may have more behind it, reached from the window's oldest index. */
function lightningPage<T>(window: HistoryPage<T>, limit: number, operations: Operation[]): Page {
  const hasMore = window.items.length >= limit
  return { operations, has_more: hasMore, ...(hasMore ? { next_index_offset: window.firstIndexOffset } : {}) }
}

function requireFilter(filter: LndFilter): void {
  for (const field of ['limit_invoices', 'invoice_index_offset', 'limit_payments', 'payment_index_offset', 'limit_transactions', 'tx_index_offset', 'tx_start_height'] as const) {
    const value = filter[field]
    if (value !== undefined) requireNonNegative(value, field)
  }
}

export function assetHandlers({ node, books }: { node: LightningNode; books: OperationBooks }): HandlerTable {
  /** The node's balances and one page of each of its lists, as the filter asks. */
  async function trackedNode(info: NodeInfo, filter: Omit<LndFilter, 'pubkey'>): Promise<Tracked> {
    const limits = {
      payments: pageSize(filter.limit_payments),
      invoices: pageSize(filter.limit_invoices),
      transactions: pageSize(filter.limit_transactions),
    }
    // An explicit start height is the caller's (one this call returned before); absent, the chain's tip.
    const startHeight = filter.tx_start_height ?? info.blockHeight
    const [balances, payments, invoices, chain] = await Promise.all([
      node.getBalances(),
      node.listPayments({ indexOffset: filter.payment_index_offset ?? 0, max: limits.payments }),
      node.listInvoices({ indexOffset: filter.invoice_index_offset ?? 0, max: limits.invoices }),
      node.listChainTransactions({ startHeight, indexOffset: filter.tx_index_offset ?? 0, max: limits.transactions }),
    ])
    const succeeded = payments.items.filter(payment => payment.succeeded)
    const settled = invoices.items.filter(invoice => invoice.settled)
    const [paid, received] = await Promise.all([
      books.payments(succeeded.map(payment => payment.paymentHash)),
      books.invoices(settled.map(invoice => invoice.paymentHash)),
    ])
    // Both chain pages come from one window: they share its cursor and are advanced together.
    const chainHasMore = chain.transactions.length >= limits.transactions
    const chainPage = (operations: Operation[]): Page => ({
      operations,
      has_more: chainHasMore,
      ...(chainHasMore && chain.transactions.length > 0 ? { next_index_offset: chain.nextIndexOffset } : {}),
      start_height: startHeight,
    })
    return {
      confirmed_balance: balances.chainBalanceSats,
      unconfirmed_balance: balances.unconfirmedChainBalanceSats,
      channels_balance: msatAsSats(balances.channelsLocalMsat),
      payments: lightningPage(payments, limits.payments, succeeded.map(payment => ({
        ts: payment.createdAtSeconds,
        amount: payment.valueSats,
        ...tracked(paid.get(payment.paymentHash)),
      }))),
      invoices: lightningPage(invoices, limits.invoices, settled.map(invoice => ({
        ts: invoice.settledAtSeconds,
        amount: invoice.paidSats,
        ...tracked(received.get(invoice.paymentHash)),
      }))),
      // One operation per output to the wallet; a send's change is one too, so a send can be in both lists.
      incoming_tx: chainPage(chain.transactions.flatMap(tx =>
        tx.outputs.filter(output => output.ours).map(output => ({ ts: tx.timeStampSeconds, amount: output.amountSats })),
      )),
      outgoing_tx: chainPage(chain.transactions.filter(tx => tx.spendsOurs).map(tx => ({ ts: tx.timeStampSeconds, amount: tx.amountSats }))),
    }
  }

  const GetAssetsAndLiabilitiesV2: Handler<'GetAssetsAndLiabilitiesV2'> = async input => {
    for (const filter of input.lnd_providers) requireFilter(filter)
    const info = await node.getInfo()
    // One node stands behind relaypay: a filter for another pubkey asks about nothing tracked here.
    const filter = input.lnd_providers.find(provider => provider.pubkey === info.pubkey) ?? { pubkey: info.pubkey }
    const [usersMsat, tracked] = await Promise.all([books.unlockedBalanceMsat(), trackedNode(info, filter)])
    // No liquidity provider (an upstream Pub the node leans on) is supported, so none is listed.
    return { users_balance: msatAsSats(usersMsat), lnds: [{ pubkey: info.pubkey, tracked }], liquidity_providers: [] }
  }

  // The first version: one page of each list, bounded as upstream now bounds it (payments 20 unless asked,
  // invoices 100 unless asked, both at most 50; the newest 50 chain transactions), flattened to plain lists.
  const GetAssetsAndLiabilities: Handler<'GetAssetsAndLiabilities'> = async input => {
    for (const field of ['limit_invoices', 'limit_payments', 'limit_providers'] as const) {
      const limit = input[field]
      if (limit !== undefined) requireNonNegative(limit, field)
    }
    const info = await node.getInfo()
    const [usersMsat, tracked] = await Promise.all([
      books.unlockedBalanceMsat(),
      trackedNode(info, { limit_payments: input.limit_payments, limit_invoices: input.limit_invoices ?? 100, limit_transactions: 50 }),
    ])
    return {
      users_balance: msatAsSats(usersMsat),
      lnds: [{
        pubkey: info.pubkey,
        tracked: {
          confirmed_balance: tracked.confirmed_balance,
          unconfirmed_balance: tracked.unconfirmed_balance,
          channels_balance: tracked.channels_balance,
          payments: tracked.payments.operations,
          invoices: tracked.invoices.operations,
          incoming_tx: tracked.incoming_tx.operations,
          outgoing_tx: tracked.outgoing_tx.operations,
        },
      }],
      liquidity_providers: [],
    }
  }

  return { GetAssetsAndLiabilities, GetAssetsAndLiabilitiesV2 }
}
