// What other rooms may ask of the wallet, written down. Everything here speaks in wallet ids, rows and amounts: no
// database handle and no statement crosses it, so a second storage engine is a second implementation of this
// interface, and no other room reads or writes the wallet's tables (accounts, users, apps, app_users, ledger,
// invoices, payments, transfers, products, addresses, bans, …).
import type { AccountDirectory } from '../auth/index.js'
import type { SqlExecutor } from '../store/index.js'
import type { HandlerTable, InputOf, OutputOf } from '../bus/index.js'
import type { OperationBooks } from '../node/index.js'
import type { AppRow, AppUserRow, UserRow } from './accounts.js'
import type { AddressSwapPayer } from './handlers/addresses.js'
import type {
  CreatedInvoice, InvoiceForWallet, OfferInvoiceView, WalletInvoice, WalletPaidInvoice, WalletPayment,
} from './money-views.js'
import type { NostrAccounts } from './nostr-accounts.js'
import type { PaymentTerms } from './payments/store.js'
import type { StartAudit } from './start-audit.js'
import type { UserOperation } from './user-operations.js'
import type { PaymentSums, WalletTransaction, WalletTransactionQuery } from './transaction-history.js'

import type { SpendLimit } from './spend-limit.js'

/** Accounts, wallets (users), apps and app users, as other rooms read them. */
export interface WalletAccounts {
  /** A new account with its first wallet. */
  createAccountWithWallet(name: string): Promise<{ accountId: string; userId: string }>
  userById(id: string): Promise<UserRow | undefined>
  /**
   * `on`: the caller's open transaction, for a read inside it (on SQLite a read through the store itself would
   * wait for that transaction to end).
   */
  appById(id: string, on?: SqlExecutor): Promise<AppRow | undefined>
  apps(): Promise<AppRow[]>
  /** An app user by its identifier. */
  appUser(identifier: string, on?: SqlExecutor): Promise<AppUserRow | undefined>
  /** The app user a wallet belongs to, if any (kept in memory once read; cleared by every app_users change). */
  appUserOf(userId: string, on?: SqlExecutor): Promise<AppUserRow | undefined>
  /** The sum of every wallet's balance. */
  usersBalanceMsat(): Promise<number>
}

/** Read-only figures for reports that must not disturb the payment path (metrics sampling). */
export interface WalletBalanceReader {
  /** The sum of every wallet's balance, read on a connection of its own. */
  usersBalanceMsat(): Promise<number>
  close(): void
}

/**
 * Wallet page links (wallet-link-store.ts): one per app user's wallet at most, known by their id (the public half of
 * the secret). The wallet page room hands them out and revokes them; the NWC room asks whether one still stands.
 */
export interface WalletLinks {
  /** A new link for the wallet `userId`; the link it had before (`replaced`: its id) stops working with it. */
  issue(userId: string): Promise<{ id: string; secret: string; createdAt: number; replaced: string | undefined }>
  /** Revokes the wallet's link: the revoked link's id, or undefined when it had none. */
  revoke(userId: string): Promise<string | undefined>
  /** Whether the link with this id still opens its wallet. */
  live(id: string): Promise<boolean>
}

export interface Wallet {
  accounts: WalletAccounts
  /** Wallet page links. */
  walletLinks: WalletLinks
  /** Nostr keys as wallet users: lookup, linking, account creation for a key. */
  nostr: NostrAccounts
  /** The app that exists from the first start (upstream `wallet`). */
  defaultApp: AppRow
  /** The wallet's operations, for the registry. */
  handlers: HandlerTable
  /** What authentication asks of accounts. */
  directory: AccountDirectory

  /** Issues an invoice credited to `walletId` when paid (host API, extensions, LNURL). */
  createInvoiceFor(walletId: string, request: InvoiceForWallet): Promise<CreatedInvoice>
  /**
   * Pays an invoice that carries an amount from `walletId`, with the same fees, checks and ledger as PayInvoice.
   * Throws OperationError on refusal; an external payment whose outcome is not known yet also throws
   * (`upstream_failed`) and stays pending until the node knows. `spendLimit` is the caller's own limit, checked
   * in the transaction that debits the wallet.
   */
  payInvoiceFor(walletId: string, paymentRequest: string, opts?: { spendLimit?: SpendLimit }): Promise<WalletPayment & { feeMsat: number }>
  /** The invoices issued to `walletId` for a CLINK offer, oldest first; only the paid ones unless asked. */
  offerInvoices(walletId: string, offerId: string, includeUnpaid: boolean): Promise<OfferInvoiceView[]>
  invoiceByPaymentHash(paymentHash: string): Promise<WalletInvoice | undefined>
  paymentByHash(paymentHash: string): Promise<WalletPayment | undefined>
  /**
   * Settles once the node's settlement with `settleIndex` is credited here, or after `withinMs` (test mode's
   * SetMockInvoiceAsPaid answers when the balance shows the payment).
   */
  settlementApplied(settleIndex: number, withinMs: number, paymentHash?: string): Promise<void>
  /** A wallet's balance now (0 for an unknown wallet). */
  balanceMsat(walletId: string): Promise<number>
  /** A wallet's invoices and payments, newest first (NIP-47 list_transactions). */
  transactions(walletId: string, query: WalletTransactionQuery, now: number): Promise<WalletTransaction[]>
  /** One of a wallet's invoices or payments by payment hash: its own payment of it first, else the latest. */
  transactionByPaymentHash(walletId: string, paymentHash: string, now: number): Promise<WalletTransaction | undefined>
  /** A payment as the wallet's operation history shows it (UserOperation), or undefined. */
  paymentOperationByHash(paymentHash: string): Promise<UserOperation | undefined>
  /** Deletes an unpaid invoice of an extension (`extra.tag`) that expired by `now`. */
  forgetExpiredInvoice(paymentHash: string, tag: string, now: number): Promise<boolean>
  /** Every paid invoice whose `extra.tag` is `tag`, oldest first (re-delivery to extensions at start). */
  paidInvoicesTagged(tag: string): Promise<WalletPaidInvoice[]>
  /** An invoice for a product (`p:<id>` CLINK offers); undefined when there is no such product. */
  productInvoiceFor(productId: string, appId?: string): Promise<CreatedInvoice | undefined>

  /** The wallets' records of operations the node reports (GetAssetsAndLiabilities): by payment hash, and the unlocked total. */
  booked: OperationBooks
  /** GetAppsMetrics: per application, its users' balances and the money its wallets moved in a window. */
  appsMetrics(request: InputOf<'GetAppsMetrics'>): Promise<OutputOf<'GetAppsMetrics'>>
  /**
   * A reader of balance sums for periodic sampling, on a read-only connection of its own on SQLite (on the store's
   * pool on PostgreSQL); close it when done.
   */
  openBalanceReader(): WalletBalanceReader

  /** PayAddress to outside addresses goes through this transaction-swap desk from now on. */
  attachSwapPayer(payer: AddressSwapPayer): void
  /** The service fee `payerId` would pay on an outgoing invoice of `amountSats` (0 for an app owner). */
  outgoingServiceFeeSats(payerId: string, amountSats: number): Promise<number>
  /** The routing fee limit the wallet gives the node for a payment of `amountSats`. */
  routingFeeLimitSats(amountSats: number): number
  /** Refuses every outgoing payment and transfer from now on (the start-up audit failed). */
  lockOutgoing(reason: string): void
  /**
   * Checks the books before any money moves; payments wait for the verdict from this call on
   * (src/wallet/start-audit.ts). `file` is the SQLite database, audited on a connection of its own; on PostgreSQL
   * the audit runs on the wallet's store and `file` is not read.
   */
  auditAtStart(file: string, opts?: { backgroundAboveEntries?: number; backgroundAfter?: Promise<unknown> }): Promise<StartAudit>
  /** Follows the node's settlements and resolves payments a stop left pending, in the background. */
  start(): Promise<void>
  /** Stops following the node and commits what is queued; in-flight payments stay pending until the next start. */
  stop(): Promise<void>
}
