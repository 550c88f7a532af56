// Products: a fixed-price item a user sells (AddProduct) and the invoices buyers get for it (NewProductInvoice).
// Upstream never credits a product invoice (it has no linked app); here the owner is credited like any invoice.
import { bytesToHex } from '@noble/hashes/utils.js'
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { SqlStore } from '../../store/index.js'
import { encodeNoffer } from '../../nostr-codecs/index.js'
import type { Random } from '../accounts.js'
import type { IssueInvoice } from '../invoices/issue.js'
import type { InvoiceRow } from '../invoices/store.js'
import { positiveSatsAsMsat } from '../msat.js'

interface ProductRow {
  id: string
  owner_user_id: string
  name: string
  price_sats: number
  created_at: number
}

/** A noffer carries the price in 4 bytes of sats. */
const maxPriceSats = 0xffffffff

export interface ProductDeps {
  sql: SqlStore
  random: Random
  now(): number
  issue: IssueInvoice
  relayUrl(): string
}

const productTexts = {
  insert: `INSERT INTO products (id, owner_user_id, name, price_sats, created_at)
      VALUES (@id, @ownerUserId, @name, @priceSats, @createdAt) RETURNING *`,
  byId: 'SELECT * FROM products WHERE id = ?',
}

export function productHandlers({ sql, random, now, issue, relayUrl }: ProductDeps): HandlerTable {

  const describe = (product: ProductRow) => ({
    id: product.id,
    name: product.name,
    price_sats: product.price_sats,
    // Upstream quirk kept for its clients: the pubkey is the owner's user id and the offer is `p:<product id>`.
    noffer: encodeNoffer({
      pubkey: product.owner_user_id,
      relay: relayUrl(),
      offer: `p:${product.id}`,
      priceType: 'fixed',
      priceSats: product.price_sats,
    }),
  })

  return {
    AddProduct: async (input, ctx) => {
      const name = input.name.trim()
      if (name.length === 0 || name.length > 200) throw new OperationError('invalid_input', 'name must be 1 to 200 characters')
      positiveSatsAsMsat(input.price_sats, 'price_sats')
      if (input.price_sats > maxPriceSats) throw new OperationError('invalid_input', `price_sats must be at most ${maxPriceSats}`)
      const id = uuidV4(random(16))
      const product = await sql.one<ProductRow>(productTexts.insert, { id, ownerUserId: ctx.caller.userId, name, priceSats: input.price_sats, createdAt: now() })
      return describe(product!)
    },

    NewProductInvoice: async (input, ctx) => {
      const invoice = await productInvoice(sql, issue, input.id, { payerUserId: ctx.caller.userId })
      if (!invoice) throw new OperationError('not_found', 'product not found')
      return { invoice: invoice.payment_request }
    },
  }
}

/** An invoice for one product at its price, credited to its owner; undefined when there is no such product. */
export async function productInvoice(
  sql: SqlStore,
  issue: IssueInvoice,
  productId: string,
  opts: { payerUserId?: string; appId?: string } = {},
): Promise<InvoiceRow | undefined> {
  const product = await sql.one<ProductRow>(productTexts.byId, [productId])
  if (!product) return undefined
  return issue({
    userId: product.owner_user_id,
    amountMsat: positiveSatsAsMsat(product.price_sats, 'price_sats'),
    memo: product.name,
    productId: product.id,
    ...opts,
  })
}

/** RFC 9562 version 4 layout over 16 random bytes. */
function uuidV4(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const hex = bytesToHex(b)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
