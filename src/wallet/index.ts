// The wallet room: accounts, apps, app users and wallets, and the money that moves between them — invoices,
// settlement, payments, transfers, bans and test-mode balances. Its factory receives every dependency once; the
// door below is all other rooms may call.
import type { Logger } from 'pino'
import type { SqlStore } from '../store/index.js'
import type { TokenSigner } from '../auth/index.js'
import { Subject, type DomainEvent, type EventOf, type HandlerTable, systemTimers } from '../bus/index.js'
import { nodeNotReadyReason, type LightningNode, type Timers } from '../node/index.js'
import { bookedOperations } from './booked-operations.js'
import { relayRefusal } from '../callbacks/index.js'
import { accountStore, type Random } from './accounts.js'
import { appHandlers } from './handlers/apps.js'
import { walletHandlers } from './handlers/wallets.js'
import { checkFeeSpread, routingFeeLimitSats, serviceFeeSats, type FeePolicy } from './fees.js'
import { createLedger } from './ledger.js'
import { feeCollectors } from './fee-collectors.js'
import { invoiceStore } from './invoices/store.js'
import { invoiceIssuer } from './invoices/issue.js'
import { invoiceHandlers } from './handlers/invoices.js'
import { productHandlers, productInvoice } from './handlers/products.js'
import { settlement } from './settlement.js'
import { paymentStore } from './payments/store.js'
import { outgoingGate } from './payments/outgoing-gate.js'
import { paymentResolution } from './payments/resolution.js'
import { invoicePayer } from './payments/pay-invoice.js'
import type { SpendLimit } from './spend-limit.js'
import { transactionHistory } from './transaction-history.js'
import { paymentHandlers } from './handlers/payments.js'
import { transferDesk, transferHandlers } from './handlers/transfers.js'
import { addressHandlers, type AddressSwapPayer } from './handlers/addresses.js'
import { banHandlers } from './handlers/bans.js'
import { mockBalanceHandlers } from './handlers/mock-balances.js'
import { walletMoneyViews, type CreatedInvoice } from './money-views.js'
import { groupCommit, moneyTransaction, type Fence } from './group-commit.js'
import { startAudit, type StartAudit } from './start-audit.js'
import { operatorViews } from './handlers/operator-views.js'
import { walletLinkStore } from './wallet-link-store.js'
import { userInfoHandlers } from './handlers/user-info.js'
import { clinkPointerCache } from './describe-user.js'
import { operationsHistoryHandlers } from './handlers/operations-history.js'
import { adminUsersHandlers } from './handlers/admin-users.js'
import { liveStreamHandlers } from './handlers/live-streams.js'
import { nostrAccounts } from './nostr-accounts.js'
import { appsReport } from './apps-report.js'
import { openBalanceReader } from './balance-reader.js'
import type { Wallet } from './door.js'
import type { RateBudget } from '../limits/index.js'

export type { AccountStore, AppRow, UserRow, AppUserRow } from './accounts.js'
export { maxWithdrawableSats, type FeePolicy } from './fees.js'
export { positiveSatsAsMsat } from './msat.js'
export { operationId } from './user-operations.js'
export type { AddressSwapPayer } from './handlers/addresses.js'
export type { UserOperation } from './user-operations.js'
export type {
  CreatedInvoice, InvoiceForWallet, OfferInvoiceView, WalletInvoice, WalletPayment, WalletPaidInvoice,
} from './money-views.js'
export { auditLedger, auditLedgerFile, lastLedgerEntryId, type AuditReport } from './audit.js'
export type { PaymentTerms } from './payments/store.js'
export type { SpendLimit } from './spend-limit.js'
export type { PaymentSums, WalletTransaction, WalletTransactionQuery, TransactionDirection, TransactionState } from './transaction-history.js'
export type { NostrAccounts, NostrUser } from './nostr-accounts.js'
export type { Wallet, WalletAccounts, WalletBalanceReader, WalletLinks } from './door.js'


export interface WalletDeps {
  /** The store of every wallet table, SQLite or PostgreSQL: every statement of the wallet runs on it. */
  sql: SqlStore
  /**
   * The SQLite file when the books are in SQLite (absent on PostgreSQL and for an in-memory database): the
   * operator's payment search and the metrics' balance sampling read it on read-only connections of their own, so
   * they never wait behind the payment path's writes.
   */
  file?: string
  /**
   * The standby's epoch check (src/store/active-lock.ts checkEpoch), run first in every transaction that moves
   * money; absent on SQLite (one process owns the file).
   */
  fence?: Fence
  tokens: TokenSigner
  random: Random
  now(): number
  fees: FeePolicy
  relayUrl(): string
  bridgeUrl: string
  allowBalanceMigration: boolean
  /** How many accounts Nostr keys may open on their own, node wide (default: unlimited). */
  newAccounts?: RateBudget
  extensions: readonly string[]
  defaultAppName: string
  node: LightningNode
  /** Domain events, emitted after the transaction that caused them commits. */
  emit(event: DomainEvent): void
  log: Logger
  /** Paid-invoice callbacks and UpdateCallbackUrl may name loopback addresses (tests). */
  allowLoopbackCallbacks?: boolean
  /**
   * Why a relay a zap request given to NewInvoice, AddAppInvoice or AddAppUserInvoice names would not get the
   * receipt (callbacks' relayRefusal); unset: only WebSocket URLs the guard lets through, no service relay.
   */
  zapRelayRefusal?(url: string): string | undefined
  /** For re-asking the node about in-flight payments; real timers by default. */
  timers?: Timers
  /**
   * The limit of a PayInvoice / PayAppUserInvoice that names `debit_npub`: the payment counts against that key's
   * debit grant (the CLINK room's budget check, run in the payment's transaction). Without it such a payment is
   * refused rather than paid unattributed.
   */
  debitLimit?: (payment: { payerId: string; appId: string; debitNpub: string }) => SpendLimit
}

export async function createWallet(deps: WalletDeps): Promise<Wallet> {
  checkFeeSpread(deps.fees)
  const { node, log, now } = deps
  // The wallet's own operations, for the GetLiveUserOperations streams its callers subscribe to; every event goes
  // to the daemon's bus as well.
  const operations = new Subject<EventOf<'user.operation'>>()
  const emit = (event: DomainEvent) => {
    deps.emit(event)
    if (event.type === 'user.operation') operations.next(event)
  }
  const accounts = accountStore(deps)
  const defaultApp = await accounts.ensureDefaultApp(deps.defaultAppName)
  const ledger = createLedger()
  const transaction = moneyTransaction(deps.sql, deps.fence)
  const collectors = feeCollectors(deps.sql, defaultApp.owner_user_id)
  const gate = outgoingGate()
  const commits = groupCommit(deps.sql, deps.fence === undefined ? {} : { fence: deps.fence })
  const invoices = invoiceStore(deps.sql)
  const issue = invoiceIssuer({ node, accounts, invoices, commits, now, callbackGuard: { allowLoopback: deps.allowLoopbackCallbacks ?? false } })
  const settled = settlement({ sql: deps.sql, ...(deps.fence ? { fence: deps.fence } : {}), node, ledger, invoices, emit, log })
  const payments = paymentStore(deps.sql, ledger, invoices)
  const history = transactionHistory(deps.sql)
  const resolution = paymentResolution({ store: payments, commits, node, emit, timers: deps.timers ?? systemTimers, now, log })
  const payer = invoicePayer({
    node, accounts, invoices, payments, commits, resolution, collectors, sums: history.sums, gate, fees: deps.fees, emit, now, log,
  })
  const transfers = transferDesk({ ledger, collectors, fees: deps.fees, gate, commits, emit, now })
  // Attached after start-up by the daemon when swaps run; PayAddress to an outside address needs it.
  let swapPayer: AddressSwapPayer | undefined

  const pointers = clinkPointerCache()
  const links = walletLinkStore(deps)
  const views = operatorViews({ sql: deps.sql, ...(deps.file ? { file: deps.file } : {}), tokens: deps.tokens, now })
  const handlers: HandlerTable = {
    ...appHandlers({ ...deps, emit, accounts, ledger, pointers, transaction }),
    ...walletHandlers({ accounts, extensions: deps.extensions }),
    ...invoiceHandlers({
      accounts,
      issue,
      zapRelayRefusal: deps.zapRelayRefusal ?? relayRefusal([], { allowLoopback: deps.allowLoopbackCallbacks ?? false }),
    }),
    ...productHandlers({ sql: deps.sql, random: deps.random, now, issue, relayUrl: deps.relayUrl }),
    ...paymentHandlers({ accounts, invoices, payer, payments, node, debitLimit: deps.debitLimit }),
    ...transferHandlers(accounts, transfers),
    ...addressHandlers({ sql: deps.sql, node, transfers, random: deps.random, now, swaps: () => swapPayer }),
    ...banHandlers({ transaction, ledger, now }),
    ...mockBalanceHandlers({ transaction, ledger, accounts, node, now }),
    ...operationsHistoryHandlers(deps.sql),
    ...adminUsersHandlers(deps.sql),
    ...liveStreamHandlers(operations.asObservable()),
    ...views.handlers,
    ...userInfoHandlers({
      sql: deps.sql,
      accounts,
      fees: deps.fees,
      relayUrl: deps.relayUrl,
      bridgeUrl: deps.bridgeUrl,
      pointers,
      allowLoopbackCallbacks: deps.allowLoopbackCallbacks ?? false,
      nodeDowntimeReason: () => nodeNotReadyReason(node),
    }),
  }

  let settlementStream: { unsubscribe(): void } | undefined

  const appsMetrics = appsReport(deps.sql)
  return {
    accounts,
    walletLinks: { issue: links.issue, revoke: links.revoke, live: links.live },
    nostr: nostrAccounts({ sql: deps.sql, accounts, random: deps.random, now: deps.now, ...(deps.newAccounts ? { newAccounts: deps.newAccounts } : {}) }),
    defaultApp,
    handlers,
    directory: {
      ...accounts.directory(),
      async userForWalletLink(secret) {
        const user = await links.userFor(secret)
        return user && { kind: 'user', userId: user.user_id, appId: user.app_id, appUserId: user.identifier, walletLinkId: user.id }
      },
    },
    booked: bookedOperations(deps.sql),
    appsMetrics,
    openBalanceReader: () => openBalanceReader(deps.sql, deps.file),
    ...walletMoneyViews({ issue, payer, invoices, payments }),
    balanceMsat: (walletId: string) => ledger.balanceMsat(deps.sql, walletId),
    transactions: history.list,
    transactionByPaymentHash: history.byPaymentHash,
    /** PayAddress to outside addresses goes through this transaction-swap desk from now on. */
    settlementApplied: (settleIndex, withinMs, paymentHash) => settled.appliedThrough(settleIndex, withinMs, paymentHash),
    attachSwapPayer(payer: AddressSwapPayer): void {
      swapPayer = payer
    },
    /** The service fee `payerId` would pay on an outgoing invoice of `amountSats` (0 for an app owner). */
    async outgoingServiceFeeSats(payerId: string, amountSats: number): Promise<number> {
      return (await collectors.isAppOwner(payerId)) ? 0 : serviceFeeSats(amountSats, deps.fees)
    },
    /** The routing fee limit the wallet gives the node for a payment of `amountSats`. */
    routingFeeLimitSats: (amountSats: number) => routingFeeLimitSats(amountSats, deps.fees),
    /** An invoice for a product (`p:<id>` CLINK offers); undefined when there is no such product. */
    async productInvoiceFor(productId: string, appId?: string): Promise<CreatedInvoice | undefined> {
      const row = await productInvoice(deps.sql, issue, productId, appId === undefined ? {} : { appId })
      return row && { paymentHash: row.payment_hash, paymentRequest: row.payment_request, amountMsat: row.amount_msat, expiresAt: row.expires_at }
    },
    /** Refuses every outgoing payment and transfer from now on (the start-up audit failed). */
    lockOutgoing: (reason: string) => gate.close(reason),
    /**
     * The books are checked before any money moves (start-up audit, src/wallet/start-audit.ts): payments and
     * transfers wait for the verdict and are refused for good when it fails; receiving goes on either way.
     */
    auditAtStart(file: string, opts: { backgroundAboveEntries?: number; backgroundAfter?: Promise<unknown> } = {}): Promise<StartAudit> {
      const startedAt = now()
      const started = startAudit({ sql: deps.sql, file, ...opts })
      // The gate holds from this call on, while the journal is counted, not only once the audit has begun.
      gate.holdUntil(
        started.then(async audit => ({ report: await audit.report, background: audit.background })).then(
          ({ report, background }) => {
            const { balanceMismatches, unbalancedTransactions, paymentMismatches, invoiceMismatches, ...summary } = report
            const took = { ...summary, background, durationMs: now() - startedAt }
            views.recordAudit(report, now())
            if (report.ok) {
              log.info(took, 'ledger audit clean')
              return undefined
            }
            log.error({ ...took, balanceMismatches, unbalancedTransactions, paymentMismatches, invoiceMismatches }, 'ledger audit FAILED: outgoing payments are locked')
            return 'the ledger audit at start failed; run `relaypay audit` and repair the books before restarting'
          },
          (err: unknown) => {
            log.error({ err }, 'ledger audit FAILED to run: outgoing payments are locked')
            throw err
          },
        ),
      )
      return started.then(audit => {
        if (audit.background) log.info('ledger audit running in the background; payments wait for its verdict')
        return audit
      })
    },
    /**
     * Follows the node's settlements from the stored index (what it settled while the daemon was down comes first)
     * and resolves payments a stop or crash left pending. Both go on in the background: the start waits for
     * neither. Call once every listener of the event stream is subscribed.
     */
    async start(): Promise<void> {
      settlementStream = settled.start()
      const reconciling = await resolution.reconcilePending()
      if (reconciling.pending === 0) return
      log.info({ pending: reconciling.pending }, 'resolving payments left pending by the last stop, in the background')
      void reconciling.done.then(counts => counts && log.info(counts, 'resolved payments left pending by the last stop'))
    },
    /** Stops following the node; in-flight payments stay pending until the next start. */
    async stop(): Promise<void> {
      settlementStream?.unsubscribe()
      resolution.stop()
      await commits.flush()
    },
  }
}
