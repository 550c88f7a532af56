// Customer ordering (no credentials) and the owner's order list and status moves. Placing an order prices the
// cart, issues an invoice on the restaurant's wallet tagged with the order, and stores the order `pending`;
// the invoice-paid listener (index.ts) makes it `paid`.
import { type Handler, OperationError } from '../../../bus/index.js'
import { order as orderMessage, type OrderRow } from '../order-book.js'
import { priceCart } from '../pricing.js'
import { checkCartSize, checkCustomerNote } from '../guest-limits.js'
import type { RestaurantRoom } from '../room.js'
import { notFound, ownedRestaurant, requireOwner } from '../access.js'

export function orderHandlers(room: RestaurantRoom) {
  const { store } = room
  const pricing = { store, rates: room.host.rates, now: room.now }

  const OrderQuote: Handler<'OrderQuote'> = async (input, ctx) => {
    if (ctx.caller.kind !== 'wallet') room.budgets.quote(ctx.clientAddress, room.now())
    checkCartSize(room.limits, input.items)
    const priced = await priceCart(pricing, input.items)
    // With a wallet key, the pre-flight check that this wallet can pay.
    if (ctx.caller.kind === 'wallet') {
      const available = (await room.host.wallets.get(ctx.caller.walletId))?.balanceMsat ?? 0
      if (available < priced.requiredMsat) {
        throw new OperationError(
          'insufficient_balance',
          `insufficient balance: ${available} msat available, ${priced.requiredMsat} msat required`,
          { status: 400 },
        )
      }
    }
    return { required_msat: priced.requiredMsat }
  }

  const OrderPlace: Handler<'OrderPlace'> = async (input, ctx) => {
    room.budgets.order(ctx.clientAddress, room.now())
    checkCartSize(room.limits, input.items)
    checkCustomerNote(room.limits, input.customer_note)
    // Before any work for this restaurant: its order rate, and the unpaid orders it already holds.
    if (await store.restaurant(input.restaurant_id)) {
      room.budgets.restaurantOrder(input.restaurant_id, room.now())
      const unpaid = await room.orders.unpaidCount(input.restaurant_id)
      if (unpaid >= room.limits.max_unpaid_orders) {
        throw new OperationError(
          'limit_exceeded',
          `this restaurant holds ${unpaid} unpaid orders, its limit; try again once some are paid or expire`,
          { status: 429, retryAfterSeconds: 60 },
        )
      }
    }
    const priced = await priceCart(pricing, input.items, input.restaurant_id)
    const { restaurant } = priced
    const id = room.newId()
    const expirySeconds = (await room.settings.get()).invoice_expiry_seconds
    const invoice = await room.host.wallets.createInvoice(restaurant.wallet, {
      amountMsat: priced.requiredMsat,
      memo: `${restaurant.name} order ${id}`,
      expirySeconds,
      extra: { tag: 'restaurant', restaurant_id: restaurant.id, order_id: id },
    })
    const now = room.now()
    const row: OrderRow = {
      id,
      restaurant_id: restaurant.id,
      status: 'pending',
      items: JSON.stringify(priced.lines),
      subtotal: priced.subtotal,
      currency: restaurant.currency,
      exchange_rate: priced.exchangeRate,
      required_msat: priced.requiredMsat,
      payment_hash: invoice.paymentHash,
      payment_request: invoice.paymentRequest,
      customer_note: input.customer_note ?? null,
      table_label: input.table ?? null,
      expires_at: now + expirySeconds * 1000,
      created_at: now,
      paid_at: null,
      updated_at: now,
    }
    await room.orders.insert(row)
    return {
      order: orderMessage(row),
      invoice: { payment_request: invoice.paymentRequest, payment_hash: invoice.paymentHash },
    }
  }

  const OrderGet: Handler<'OrderGet'> = async input => orderMessage((await room.orders.get(input.id)) ?? notFound('Order'))

  const OrderList: Handler<'OrderList'> = async (input, ctx) => {
    const restaurant = await ownedRestaurant(room, input.id, ctx.caller)
    return (await room.orders.list(restaurant.id, input.statuses, input.limit)).map(orderMessage)
  }

  const OrderSetStatus: Handler<'OrderSetStatus'> = async (input, ctx) => {
    const found = (await room.orders.get(input.id)) ?? notFound('Order')
    requireOwner((await store.restaurant(found.restaurant_id)) ?? notFound('Restaurant'), ctx.caller)
    return orderMessage(await room.orders.move(found, input.new_status))
  }

  return { OrderQuote, OrderPlace, OrderGet, OrderList, OrderSetStatus }
}
