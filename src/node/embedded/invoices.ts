// The embedded node's own invoices: issuing signed BOLT11 requests, remembering their preimages, and settling
// each at most once. Settlement is a plain function for callers that wrap it in their own transaction
// (self-payment, mock settlement); emitting the event is theirs too, after commit.
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import { validInvoiceRequest } from '../invoice-request.js'
import type { CreateInvoiceRequest, NodeInvoice, SettledInvoice } from '../lightning-node.js'
import { encodeInvoice } from './bolt11-invoice.js'
import type { NodeKey } from './node-key.js'
import type { NetworkParams } from './network-params.js'
import { unixSeconds } from '../../units/index.js'

interface InvoiceRow {
  payment_hash: string
  payment_request: string
  preimage: string
  amount_msat: number | null
  description: string | null
  description_hash: string | null
  created_at: number
  expires_at: number
  settled_at: number | null
  received_msat: number | null
  settle_index: number | null
}

export interface InvoiceBookDeps {
  db: Db
  key: NodeKey
  params: NetworkParams
  clock: Clock
  random(bytes: number): Uint8Array
}

export type InvoiceBook = ReturnType<typeof invoiceBook>

export function invoiceBook({ db, key, params, clock, random }: InvoiceBookDeps) {
  const insert = db.prepare(`INSERT INTO node_invoices
      (payment_hash, payment_request, preimage, amount_msat, description, description_hash, created_at, expires_at)
      VALUES (@paymentHash, @paymentRequest, @preimage, @amountMsat, @description, @descriptionHash,
              @createdAt, @expiresAt)`)
  const byHash = db.prepare('SELECT * FROM node_invoices WHERE payment_hash = ?')
  const markSettled = db.prepare(`UPDATE node_invoices
      SET settled_at = @settledAt, received_msat = @receivedMsat,
          settle_index = (SELECT COALESCE(MAX(settle_index), 0) + 1 FROM node_invoices)
      WHERE payment_hash = @paymentHash AND settled_at IS NULL`)
  const settledAfter = db.prepare(`SELECT * FROM node_invoices WHERE settle_index > ? ORDER BY settle_index`)

  const asInvoice = (row: InvoiceRow): NodeInvoice => ({
    paymentHash: row.payment_hash,
    paymentRequest: row.payment_request,
    ...(row.amount_msat !== null ? { amountMsat: row.amount_msat } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.description_hash !== null ? { descriptionHash: row.description_hash } : {}),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    state: row.settled_at !== null ? 'paid' : clock.now() >= row.expires_at ? 'expired' : 'unpaid',
    ...(row.settled_at !== null
      ? { settledAt: row.settled_at, receivedMsat: row.received_msat!, preimage: row.preimage, settleIndex: row.settle_index! }
      : {}),
  })

  const asSettled = (row: InvoiceRow): SettledInvoice => ({
    paymentHash: row.payment_hash,
    paymentRequest: row.payment_request,
    amountMsat: row.received_msat!,
    settledAt: row.settled_at!,
    settleIndex: row.settle_index!,
  })

  return {
    create(request: CreateInvoiceRequest): NodeInvoice {
      const fields = validInvoiceRequest(request)
      const preimage = random(32)
      const paymentHash = bytesToHex(sha256(preimage))
      // BOLT11 timestamps are whole seconds; the stored times match what the payer reads from the invoice.
      const timestampSec = unixSeconds(clock.now())
      const paymentRequest = encodeInvoice({
        params,
        secretKey: key.secretKey,
        paymentHash,
        paymentSecret: bytesToHex(random(32)),
        ...fields,
        timestampSec,
      })
      insert.run({
        paymentHash,
        paymentRequest,
        preimage: bytesToHex(preimage),
        amountMsat: fields.amountMsat ?? null,
        description: fields.descriptionHash === undefined ? (fields.description ?? '') : null,
        descriptionHash: fields.descriptionHash ?? null,
        createdAt: timestampSec * 1000,
        expiresAt: (timestampSec + fields.expirySeconds) * 1000,
      })
      return asInvoice(byHash.get(paymentHash) as InvoiceRow)
    },

    lookup(paymentHash: string): NodeInvoice | undefined {
      const row = byHash.get(paymentHash.toLowerCase()) as InvoiceRow | undefined
      return row && asInvoice(row)
    },

    preimageOf(paymentHash: string): string | undefined {
      return (byHash.get(paymentHash) as InvoiceRow | undefined)?.preimage
    },

    /**
     * Marks an invoice paid with `receivedMsat`. The caller has checked amount and expiry and runs this inside its
     * transaction; conflict when the invoice is already paid, so a second payment can never settle it again.
     */
    settle(paymentHash: string, receivedMsat: number): SettledInvoice {
      const changed = markSettled.run({ paymentHash, receivedMsat, settledAt: clock.now() }).changes
      if (changed === 0) {
        if (!byHash.get(paymentHash)) throw new OperationError('not_found', 'invoice not found')
        throw new OperationError('conflict', 'invoice is already paid')
      }
      return asSettled(byHash.get(paymentHash) as InvoiceRow)
    },

    settledAfter(settleIndex: number): SettledInvoice[] {
      return (settledAfter.all(settleIndex) as InvoiceRow[]).map(asSettled)
    },
  }
}
