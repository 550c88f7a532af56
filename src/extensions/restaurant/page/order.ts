// The customer ordering page's browser script (docs/restaurant.md, "The ordering page"). The server renders the
// menu (order-page.ts); this adds modifiers, the cart, quoting, placing the order, the invoice as a QR code with a
// countdown to its expiry, a fresh invoice for an expired order, and the live status. npm run build bundles it
// (esbuild, with qrcode-generator) into build/console/order-page.js, which order-page.ts inlines into the page so
// the page keeps no external asset. Every element is built with DOM calls and text set with textContent, so no menu
// text is ever parsed as HTML.
import qrcode from 'qrcode-generator'
import { invoiceExpiresAt } from './bolt11-expiry.js'
import { satsCovering } from '../../../units/index.js'

interface Modifier { id: string; name: string; price_delta: string }
interface Group { id: string; name: string; min_select: number; max_select: number | null; modifiers: Modifier[] }
interface Item { id: string; name: string; price: string; modifier_groups: Group[] }
interface Line { key: string; item: Item; modifiers: Modifier[]; quantity: number; note: string; unit: bigint }
interface OrderItem { item_id: string; quantity: number; modifiers: { id: string }[]; note: string | null }
interface Order {
  id: string
  /** The short number the counter and the kitchen know the order by (`#ABC123`). */
  number: string
  status: string
  items: OrderItem[]
  subtotal: string
  currency: string
  required_msat: number
  payment_request: string
  table: string | null
  customer_note: string | null
}

const data = JSON.parse(document.getElementById('menu-data')!.textContent!) as { restaurant: { id: string; currency: string }; items: Item[]; apiBase: string }
const api = data.apiBase
const restaurant = data.restaurant
const items = new Map(data.items.map(item => [item.id, item]))
let cart: Line[] = []
let quoteTimer: ReturnType<typeof setTimeout> | undefined
let pollTimer: ReturnType<typeof setTimeout> | undefined
let countdownTimer: ReturnType<typeof setInterval> | undefined
let current: Order | undefined
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T

/** "1 sat", "2 sats", "1,000 sats". */
function satsText(sats: number | bigint | string): string {
  const n = typeof sats === 'string' ? Number(sats) : Number(sats)
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'sat' : 'sats'}`
}

// Amounts are decimal strings; BigInt of 10^-8 units keeps sums exact, as on the server.
const SCALE = 100000000n
function toUnits(text: string): bigint {
  const [whole, fraction = ''] = String(text).split('.')
  return BigInt(whole!) * SCALE + BigInt(fraction.padEnd(8, '0').slice(0, 8))
}
function formatUnits(units: bigint): string {
  const whole = units / SCALE
  const fraction = (units % SCALE).toString().padStart(8, '0').replace(/0+$/, '')
  if (restaurant.currency === 'sat') return fraction ? `${whole}.${fraction} sats` : `${whole} ${whole === 1n ? 'sat' : 'sats'}`
  return `${whole}.${fraction.padEnd(2, '0')} ${restaurant.currency}`
}

function el(tag: string, attrs: Record<string, string> = {}, children: Node[] = []): HTMLElement {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'text') node.textContent = value
    else node.setAttribute(key, value)
  }
  children.forEach(child => node.appendChild(child))
  return node
}

function showError(message: string): void {
  const box = $('error')
  box.textContent = message
  box.hidden = !message
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(api + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await res.json().catch(() => null)) as { detail?: string } | null
  if (!res.ok) throw new Error(json?.detail || `HTTP ${res.status}`)
  return json as T
}

// The options dialog: one fieldset per modifier group, radios when exactly one must be chosen.
let editing: Item | undefined
function openOptions(item: Item): void {
  editing = item
  $('options-title').textContent = item.name
  const groups = $('options-groups')
  groups.replaceChildren()
  for (const group of item.modifier_groups) {
    const single = group.min_select === 1 && group.max_select === 1
    const rule = single ? 'choose 1'
      : group.max_select === null ? (group.min_select > 0 ? `at least ${group.min_select}` : 'optional')
      : group.min_select === 0 ? `up to ${group.max_select}`
      : `${group.min_select} to ${group.max_select}`
    const fieldset = el('fieldset', { 'data-group-id': group.id }, [el('legend', { text: `${group.name} (${rule})` })])
    for (const modifier of group.modifiers) {
      const input = el('input', { type: single ? 'radio' : 'checkbox', name: `group-${group.id}`, value: modifier.id })
      const delta = toUnits(modifier.price_delta)
      fieldset.appendChild(el('label', {}, [input, el('span', { text: modifier.name + (delta > 0n ? ` (+${formatUnits(delta)})` : '') })]))
    }
    groups.appendChild(fieldset)
  }
  $<HTMLInputElement>('options-quantity').value = '1'
  $<HTMLInputElement>('options-note').value = ''
  $('options-error').hidden = true
  $<HTMLDialogElement>('options').showModal()
}

function chosenInDialog(item: Item): { chosen: string[]; problem?: string } {
  let chosen: string[] = []
  let problem: string | undefined
  for (const group of item.modifier_groups) {
    const picked = [...document.querySelectorAll<HTMLInputElement>(`input[name="group-${group.id}"]:checked`)].map(input => input.value)
    const max = group.max_select
    if (picked.length < group.min_select || (max !== null && picked.length > max)) {
      problem ??= `Choose ${max === null ? `at least ${group.min_select}` : group.min_select === max ? max : `${group.min_select} to ${max}`} of ${group.name}.`
    }
    chosen = chosen.concat(picked)
  }
  return { chosen, problem }
}

function addLine(item: Item, modifierIds: string[], quantity: number, note: string): void {
  const modifiers = item.modifier_groups.flatMap(group => group.modifiers.filter(m => modifierIds.includes(m.id)))
  const key = `${item.id}|${[...modifierIds].sort().join(',')}|${note}`
  const existing = cart.find(line => line.key === key)
  if (existing) existing.quantity += quantity
  else cart.push({ key, item, modifiers, quantity, note, unit: modifiers.reduce((sum, m) => sum + toUnits(m.price_delta), toUnits(item.price)) })
  renderCart()
}

function renderCart(): void {
  const list = $('cart-lines')
  list.replaceChildren()
  let total = 0n
  cart.forEach((line, index) => {
    const lineTotal = line.unit * BigInt(line.quantity)
    total += lineTotal
    const minus = el('button', { type: 'button', 'aria-label': `One less ${line.item.name}`, text: '−' })
    const plus = el('button', { type: 'button', 'aria-label': `One more ${line.item.name}`, text: '+' })
    minus.onclick = () => {
      line.quantity -= 1
      if (line.quantity < 1) cart.splice(index, 1)
      renderCart()
    }
    plus.onclick = () => {
      line.quantity += 1
      renderCart()
    }
    const children: Node[] = [el('div', { class: 'line-head' }, [el('span', { class: 'line-name', text: line.item.name }), el('span', { class: 'line-total', text: formatUnits(lineTotal) })])]
    if (line.modifiers.length) children.push(el('div', { class: 'line-mods', text: line.modifiers.map(m => m.name).join(', ') }))
    if (line.note) children.push(el('div', { class: 'line-mods', text: `Note: ${line.note}` }))
    children.push(el('div', { class: 'line-qty' }, [minus, el('span', { class: 'line-quantity', text: String(line.quantity) }), plus]))
    list.appendChild(el('li', { 'data-item-id': line.item.id }, children))
  })
  $('cart-empty').hidden = cart.length > 0
  $('checkout').hidden = cart.length === 0
  $('cart-total').textContent = cart.length ? formatUnits(total) : '–'
  $('cart-count').textContent = cart.length ? `${cart.reduce((n, line) => n + line.quantity, 0)}` : ''
  $('cart-sats').textContent = ''
  showError('')
  clearTimeout(quoteTimer)
  if (cart.length) quoteTimer = setTimeout(quote, 250)
}

const cartBody = () =>
  cart.map(line => ({ item_id: line.item.id, quantity: line.quantity, modifier_ids: line.modifiers.map(m => m.id), ...(line.note ? { note: line.note } : {}) }))

async function quote(): Promise<void> {
  try {
    const answer = await call<{ required_msat: number }>('POST', '/orders/quote', cartBody())
    $('cart-sats').textContent = `(${satsText(satsCovering(answer.required_msat))})`
  } catch (err) {
    showError((err as Error).message)
  }
}

const statusText: Record<string, string> = {
  pending: 'Waiting for payment…',
  paid: 'Paid — thank you! The kitchen has your order.',
  accepted: 'The kitchen accepted your order.',
  ready: 'Your order is ready.',
  completed: 'Enjoy your meal!',
  canceled: 'This order was canceled.',
  refunded: 'This order was refunded.',
  expired: 'The invoice expired before it was paid.',
}
const finalStatuses = ['completed', 'canceled', 'refunded', 'expired']

function showStatus(status: string): void {
  const line = $('order-status')
  line.dataset.status = status
  line.textContent = statusText[status] ?? status
  const waiting = status === 'pending'
  for (const id of ['qr', 'bolt11', 'copy', 'open-wallet', 'invoice-expiry']) $(id).hidden = !waiting
  $('fresh-invoice').hidden = status !== 'expired'
  $('new-order').hidden = waiting
  if (!waiting) clearInterval(countdownTimer)
}

/** Minutes and seconds left on the invoice, ticking; at zero the page shows the expired state at once. */
function startCountdown(order: Order): void {
  clearInterval(countdownTimer)
  const expiresAt = invoiceExpiresAt(order.payment_request)
  const box = $('invoice-expiry')
  if (expiresAt === undefined) return void (box.textContent = '')
  const tick = () => {
    const left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000))
    box.textContent = `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
    box.dataset.secondsLeft = String(left)
    if (left === 0 && current?.id === order.id && $('order-status').dataset.status === 'pending') showStatus('expired')
  }
  tick()
  countdownTimer = setInterval(tick, 1000)
}

function showInvoice(order: Order): void {
  current = order
  const bolt11 = order.payment_request
  const qr = qrcode(0, 'M')
  qr.addData(`LIGHTNING:${bolt11.toUpperCase()}`, 'Alphanumeric')
  qr.make()
  $('qr').innerHTML = qr.createSvgTag({ cellSize: 4, margin: 16, scalable: true })
  $<HTMLAnchorElement>('invoice-link').href = `lightning:${bolt11}`
  $<HTMLAnchorElement>('open-wallet').href = `lightning:${bolt11}`
  $<HTMLTextAreaElement>('bolt11').value = bolt11
  $('invoice').dataset.orderId = order.id
  $('order-number').textContent = `Order ${order.number}`
  const sats = satsText(satsCovering(order.required_msat))
  $('invoice-amount').textContent = order.currency === 'sat' ? sats : `${sats} (${order.subtotal} ${order.currency})`
  $('invoice').hidden = false
  showStatus(order.status)
  if (order.status === 'pending') startCountdown(order)
  $('invoice').scrollIntoView({ block: 'start' })
  poll(order.id, order.status)
}

function poll(orderId: string, status: string): void {
  clearTimeout(pollTimer)
  if (finalStatuses.includes(status)) return
  pollTimer = setTimeout(async () => {
    let next = status
    try {
      next = (await call<Order>('GET', `/orders/${encodeURIComponent(orderId)}`)).status
      // The countdown may have shown the expiry a moment before the server swept the order.
      if (!(next === 'pending' && $('order-status').dataset.status === 'expired')) showStatus(next)
    } catch {
      // A dropped connection is retried on the next tick; the order itself is safe on the server.
    }
    poll(orderId, next)
  }, status === 'pending' ? 1000 : 5000)
}

async function place(body: Record<string, unknown>): Promise<void> {
  const placed = await call<{ order: Order }>('POST', '/orders', body)
  history.replaceState(null, '', `#order=${placed.order.id}`)
  showInvoice(placed.order)
}

document.addEventListener('click', event => {
  const button = (event.target as Element).closest('[data-add]')
  if (!button) return
  const item = items.get(button.getAttribute('data-add')!)!
  if (item.modifier_groups.length) openOptions(item)
  else addLine(item, [], 1, '')
})

$('options-cancel').onclick = () => $<HTMLDialogElement>('options').close()
$('options-form').addEventListener('submit', event => {
  if (!editing) return
  const result = chosenInDialog(editing)
  const quantity = Math.max(1, Math.min(99, parseInt($<HTMLInputElement>('options-quantity').value, 10) || 1))
  if (result.problem) {
    event.preventDefault()
    $('options-error').textContent = result.problem
    $('options-error').hidden = false
    return
  }
  addLine(editing, result.chosen, quantity, $<HTMLInputElement>('options-note').value.trim())
})

$('checkout').addEventListener('submit', async event => {
  event.preventDefault()
  const button = $<HTMLButtonElement>('place-order')
  button.disabled = true
  showError('')
  try {
    const table = $<HTMLInputElement>('table').value.trim()
    const note = $<HTMLTextAreaElement>('customer-note').value.trim()
    const body = { restaurant_id: restaurant.id, items: cartBody(), ...(table ? { table } : {}), ...(note ? { customer_note: note } : {}) }
    // The cart becomes the order: emptied once placed, so a second click cannot place it twice.
    await place(body)
    cart = []
    renderCart()
  } catch (err) {
    showError((err as Error).message)
  } finally {
    button.disabled = false
  }
})

// An expired order is placed again as it was (same lines, table and note) for a fresh invoice.
$('fresh-invoice').onclick = async () => {
  if (!current) return
  const old = current
  const button = $<HTMLButtonElement>('fresh-invoice')
  button.disabled = true
  try {
    await place({
      restaurant_id: restaurant.id,
      items: old.items.map(line => ({ item_id: line.item_id, quantity: line.quantity, modifier_ids: line.modifiers.map(m => m.id), ...(line.note ? { note: line.note } : {}) })),
      ...(old.table ? { table: old.table } : {}),
      ...(old.customer_note ? { customer_note: old.customer_note } : {}),
    })
  } catch (err) {
    $('order-status').textContent = `No fresh invoice: ${(err as Error).message}`
  } finally {
    button.disabled = false
  }
}

$('copy').onclick = async () => {
  try {
    await navigator.clipboard.writeText($<HTMLTextAreaElement>('bolt11').value)
    $('copy').textContent = 'Copied'
  } catch {
    $<HTMLTextAreaElement>('bolt11').select()
  }
}

$('new-order').onclick = () => {
  clearTimeout(pollTimer)
  clearInterval(countdownTimer)
  current = undefined
  cart = []
  renderCart()
  $('invoice').hidden = true
  history.replaceState(null, '', location.pathname)
  window.scrollTo(0, 0)
}

// A reload while paying keeps the invoice: the order id rides in the fragment.
const resumed = /^#order=([A-Za-z0-9_-]+)$/.exec(location.hash)
if (resumed) call<Order>('GET', `/orders/${resumed[1]}`).then(showInvoice, () => history.replaceState(null, '', location.pathname))
renderCart()
