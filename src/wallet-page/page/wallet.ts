// The wallet page's browser script (docs/wallet-page.md). The link's fragment holds the wallet link secret; every
// call is a user operation of the daemon with that secret as its bearer credential, so the page holds nothing the
// server does not check on each request, and keeps the secret in memory only. npm run build bundles this (esbuild,
// with qrcode-generator and jsQR) into build/console/wallet-page.js, which page-html.ts inlines. Text is set with
// textContent only: nothing an invoice or a memo carries is parsed as HTML.
import qrcode from 'qrcode-generator'
import { classifyDestination } from './destination.js'
import { scanPanel } from './scan-panel.js'
import { successActionView, type SuccessAction } from './success-action.js'

interface UserInfo { balance: number; max_withdrawable: number; user_identifier: string }
interface Operation { paidAtUnix: number; type: string; inbound: boolean; amount: number; identifier: string; operationId: string; service_fee: number; network_fee: number }
interface OperationList { operations: Operation[] }

/** How often the balance and history are read again; faster while an invoice shown here waits for its payment. */
const refreshEveryMs = 15_000
const waitingRefreshEveryMs = 2_000
/** History entries shown, newest first. */
const historyShown = 50

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T
/** The link's fragment, as written (a link copied through some apps arrives percent-encoded). */
function secretOfLink(): string {
  const fragment = location.hash.slice(1)
  try {
    return decodeURIComponent(fragment).trim()
  } catch {
    return fragment.trim()
  }
}
const secret = secretOfLink()
let waitingFor: string | undefined
let refreshTimer: ReturnType<typeof setTimeout> | undefined
/** What Continue found: an invoice of a known amount, or an LNURL / Lightning address whose amount the user picks. */
let pending: { invoice: string; sats: number } | { destination: string; minSats: number; maxSats: number } | undefined

/** "1 sat", "2,100 sats": whole sats, as every amount the user operations answer. */
function satsText(sats: number): string {
  return `${sats.toLocaleString('en-US')} ${sats === 1 ? 'sat' : 'sats'}`
}

class Refusal extends Error {}

/** A user operation with the link's secret; its `reason` becomes the error a person reads. */
async function call<T>(path: string, body: unknown = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      referrerPolicy: 'no-referrer',
    })
  } catch {
    throw new Error('The wallet cannot be reached right now; check the connection and try again.')
  }
  const answer = (await response.json().catch(() => ({}))) as { status?: string; reason?: string; detail?: string }
  if (answer.status === 'OK') return answer as T
  throw new Refusal(answer.reason ?? answer.detail ?? `The wallet answered HTTP ${response.status}.`)
}

function show(id: string, visible: boolean): void {
  $(id).hidden = !visible
}

function showError(err: unknown): void {
  const box = $('error')
  box.textContent = err instanceof Error ? err.message : String(err)
  box.hidden = false
}

function clearError(): void {
  $('error').hidden = true
}

/** The link opens no wallet (wrong, replaced or revoked): the wallet goes away and the reason stays. */
function refuse(reason: string): void {
  clearTimeout(refreshTimer)
  show('wallet', false)
  $('refused-reason').textContent = reason
  show('refused', true)
}

function qrDataUrl(text: string, alphanumeric: boolean): string {
  const qr = qrcode(0, 'M')
  // An invoice in capitals fits the QR code's denser alphanumeric mode; wallets read either case.
  if (alphanumeric) qr.addData(text.toUpperCase(), 'Alphanumeric')
  else qr.addData(text)
  qr.make()
  return qr.createDataURL(6, 16)
}

async function copy(text: string, button: HTMLButtonElement, field: HTMLTextAreaElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text)
    button.textContent = 'Copied'
  } catch {
    field.select()
    button.textContent = 'Selected: copy it by hand'
  }
}

const operationLabels: Record<string, string> = {
  INCOMING_INVOICE: 'Received',
  OUTGOING_INVOICE: 'Sent',
  INCOMING_TX: 'Received on-chain',
  OUTGOING_TX: 'Sent on-chain',
  INCOMING_USER_TO_USER: 'Received from a user',
  OUTGOING_USER_TO_USER: 'Sent to a user',
}

function historyLine(op: Operation): HTMLLIElement {
  const line = document.createElement('li')
  const what = document.createElement('span')
  what.className = 'what'
  const when = op.paidAtUnix > 0 ? new Date(op.paidAtUnix * 1000).toLocaleString() : op.paidAtUnix === 0 ? 'pending' : 'failed'
  what.textContent = `${operationLabels[op.type] ?? op.type} · ${when}`
  const amount = document.createElement('span')
  const fees = op.service_fee + op.network_fee
  amount.className = op.inbound ? 'amount in' : 'amount'
  amount.textContent = `${op.inbound ? '+' : '−'}${satsText(op.amount)}${!op.inbound && fees > 0 ? ` (fee ${satsText(fees)})` : ''}`
  line.append(what, amount)
  return line
}

/** The six lists of GetUserOperations: the cursor field of the request, the list field of the answer. */
const lists = [
  ['latestIncomingInvoice', 'latestIncomingInvoiceOperations'],
  ['latestOutgoingInvoice', 'latestOutgoingInvoiceOperations'],
  ['latestIncomingTx', 'latestIncomingTxOperations'],
  ['latestOutgoingTx', 'latestOutgoingTxOperations'],
  ['latestIncomingUserToUserPayment', 'latestIncomingUserToUserPayemnts'],
  ['latestOutgoingUserToUserPayment', 'latestOutgoingUserToUserPayemnts'],
] as const
/** Rows asked for per list and call; the lists run oldest first, so the first load pages through to the newest. */
const historyPage = 200
/** Where each list was read up to: each refresh asks only for what came after. */
const cursors = new Map<string, { ts: number; id: number }>(lists.map(([cursor]) => [cursor, { ts: 0, id: 0 }]))
let history: Operation[] = []

/** Reads what is new in every list since the last read, and keeps the newest entries. */
async function readHistory(): Promise<Operation[]> {
  const fresh: Operation[] = []
  for (;;) {
    const answer = await call<Record<string, OperationList & { toIndex: { ts: number; id: number } }>>('/api/user/operations', {
      ...Object.fromEntries(cursors),
      max_size: historyPage,
    })
    let more = false
    for (const [cursor, field] of lists) {
      const list = answer[field]
      if (!list || !Array.isArray(list.operations) || list.operations.length === 0) continue
      cursors.set(cursor, list.toIndex)
      fresh.push(...list.operations)
      if (list.operations.length >= historyPage) more = true
    }
    if (!more) break
  }
  const seen = new Set(fresh.map(op => op.operationId))
  history = [...fresh, ...history.filter(op => !seen.has(op.operationId))]
    .sort((a, b) => (b.paidAtUnix || Infinity) - (a.paidAtUnix || Infinity))
    .slice(0, historyShown)
  return fresh
}

/** Balance and history, read again; when an invoice shown here appears among the paid ones, it turns paid. */
async function refresh(): Promise<void> {
  clearTimeout(refreshTimer)
  try {
    const info = await call<UserInfo>('/api/user/info')
    $('balance').textContent = satsText(info.balance)
    $('withdrawable').textContent = `You can send up to ${satsText(info.max_withdrawable)} (the balance less the service fee).`
    show('refused', false)
    show('wallet', true)
  } catch (err) {
    if (err instanceof Refusal) return refuse(err.message)
    showError(err)
    refreshTimer = setTimeout(() => void refresh(), refreshEveryMs)
    return
  }
  try {
    const fresh = await readHistory()
    $('history').replaceChildren(...history.map(historyLine))
    show('history-empty', history.length === 0)
    const paid = waitingFor && fresh.find(op => op.type === 'INCOMING_INVOICE' && op.identifier === waitingFor)
    if (paid) {
      waitingFor = undefined
      const state = $('invoice-state')
      state.dataset.state = 'paid'
      state.textContent = `Paid: ${satsText(paid.amount)} received.`
    }
  } catch (err) {
    if (err instanceof Refusal) return refuse(err.message)
    showError(err)
  }
  refreshTimer = setTimeout(() => void refresh(), waitingFor ? waitingRefreshEveryMs : refreshEveryMs)
}

function selectTab(name: 'receive' | 'send' | 'connect'): void {
  if (name !== 'send') scanning.stop()
  for (const tab of ['receive', 'send', 'connect'] as const) {
    $(`tab-${tab}`).setAttribute('aria-pressed', String(tab === name))
    show(tab, tab === name)
  }
}

async function receive(event: SubmitEvent): Promise<void> {
  event.preventDefault()
  clearError()
  const amount = Number($<HTMLInputElement>('receive-amount').value)
  if (!Number.isSafeInteger(amount) || amount < 1) return showError('Enter a whole number of sats, 1 or more.')
  try {
    const { invoice } = await call<{ invoice: string }>('/api/user/invoice/new', {
      amountSats: amount,
      memo: $<HTMLInputElement>('receive-memo').value.trim(),
    })
    $<HTMLImageElement>('invoice-qr').src = qrDataUrl(`lightning:${invoice}`, true)
    $<HTMLTextAreaElement>('invoice-text').value = invoice
    $('invoice-copy').textContent = 'Copy invoice'
    const state = $('invoice-state')
    state.dataset.state = 'waiting'
    state.textContent = `Waiting for the payment of ${satsText(amount)}…`
    show('invoice', true)
    waitingFor = invoice
    refreshTimer = setTimeout(() => void refresh(), waitingRefreshEveryMs)
  } catch (err) {
    showError(err)
  }
}

async function prepareSend(event: SubmitEvent): Promise<void> {
  event.preventDefault()
  clearError()
  show('send-confirm', false)
  show('send-choice', false)
  $('send-result').textContent = ''
  show('send-success', false)
  pending = undefined
  const destination = classifyDestination($<HTMLTextAreaElement>('send-text').value)
  if (destination.kind === 'unknown') return showError(destination.problem)
  try {
    if (destination.kind === 'invoice') {
      const { amount } = await call<{ amount: number }>('/api/user/invoice/decode', { invoice: destination.invoice })
      if (amount <= 0) {
        return showError('This invoice names no amount, and this page pays only invoices that do. Ask for an invoice with an amount.')
      }
      pending = { invoice: destination.invoice, sats: amount }
      $('send-summary').textContent = `Pay ${satsText(amount)}, plus the service fee?`
      $('send-pay').textContent = `Pay ${satsText(amount)}`
    } else {
      const offer = await call<{ domain: string; description: string; min_sats: number; max_sats: number; comment_chars: number }>(
        '/api/user/lnurl/pay/resolve',
        { destination: destination.destination },
      )
      if (offer.min_sats > offer.max_sats) return showError(`${offer.domain} takes less than one whole sat; this page pays whole sats.`)
      pending = { destination: destination.destination, minSats: offer.min_sats, maxSats: offer.max_sats }
      const what = destination.kind === 'address' ? destination.destination : offer.domain
      $('send-summary').textContent = `Pay ${what}${offer.description ? ` (“${offer.description}”)` : ''}: from ${satsText(offer.min_sats)} to ${satsText(offer.max_sats)}, plus the service fee.`
      const amount = $<HTMLInputElement>('send-amount')
      amount.min = String(offer.min_sats)
      amount.max = String(offer.max_sats)
      amount.value = String(offer.min_sats)
      const comment = $<HTMLInputElement>('send-comment')
      comment.value = ''
      comment.maxLength = offer.comment_chars
      show('send-comment-field', offer.comment_chars > 0)
      show('send-choice', true)
      $('send-pay').textContent = 'Pay'
    }
    show('send-confirm', true)
  } catch (err) {
    showError(err)
  }
}

/**
 * The invoice to pay: the pasted one, or one the LNURL's server makes for the amount chosen, with what that server
 * asks to be shown once it is paid (LUD-09).
 */
async function invoiceToPay(choice: NonNullable<typeof pending>): Promise<{ invoice: string; successAction?: SuccessAction }> {
  if ('invoice' in choice) return { invoice: choice.invoice }
  const amount = Number($<HTMLInputElement>('send-amount').value)
  if (!Number.isSafeInteger(amount) || amount < choice.minSats || amount > choice.maxSats) {
    throw new Error(`Enter a whole number of sats from ${choice.minSats.toLocaleString('en-US')} to ${choice.maxSats.toLocaleString('en-US')}.`)
  }
  const comment = $<HTMLInputElement>('send-comment').value.trim()
  const { invoice, success_action } = await call<{ invoice: string; success_action?: SuccessAction }>('/api/user/lnurl/pay/invoice', {
    destination: choice.destination,
    amount_sats: amount,
    ...(comment ? { comment } : {}),
  })
  return { invoice, ...(success_action ? { successAction: success_action } : {}) }
}

/** The recipient's success action under the payment's result; nothing for one that is invalid. */
async function showSuccessAction(action: SuccessAction, preimage: string): Promise<void> {
  const shown = await successActionView(action, preimage)
  $('send-success-body').replaceChildren(...shown)
  show('send-success', shown.length > 0)
}

async function pay(): Promise<void> {
  if (!pending) return
  clearError()
  const choice = pending
  const result = $('send-result')
  let invoice: string
  let successAction: SuccessAction | undefined
  try {
    ;({ invoice, successAction } = await invoiceToPay(choice))
  } catch (err) {
    return showError(err)
  }
  pending = undefined
  show('send-confirm', false)
  result.dataset.state = 'paying'
  result.textContent = 'Paying…'
  try {
    const paid = await call<{ preimage: string; amount_paid: number; service_fee: number; network_fee: number; latest_balance: number }>(
      '/api/user/invoice/pay',
      { invoice, amount: 0 },
    )
    result.dataset.state = 'paid'
    result.textContent = `Paid ${satsText(paid.amount_paid)} (fee ${satsText(paid.service_fee + paid.network_fee)}).`
    $<HTMLTextAreaElement>('send-text').value = ''
    $('balance').textContent = satsText(paid.latest_balance)
    if (successAction) await showSuccessAction(successAction, paid.preimage)
  } catch (err) {
    result.dataset.state = 'failed'
    result.textContent = `Not paid: ${err instanceof Error ? err.message : String(err)}`
  }
  void refresh()
}

async function connect(event: SubmitEvent): Promise<void> {
  event.preventDefault()
  clearError()
  try {
    const created = await call<{ connection_uri: string }>('/api/user/nwc/create', { name: $<HTMLInputElement>('connect-name').value.trim() })
    $<HTMLImageElement>('connection-qr').src = qrDataUrl(created.connection_uri, false)
    $<HTMLTextAreaElement>('connection-text').value = created.connection_uri
    $('connection-copy').textContent = 'Copy connection string'
    show('connection', true)
  } catch (err) {
    showError(err)
  }
}

const scanning = scanPanel({ $, show, showError, clearError })
$('tab-receive').addEventListener('click', () => selectTab('receive'))
$('tab-send').addEventListener('click', () => selectTab('send'))
$('tab-connect').addEventListener('click', () => selectTab('connect'))
$('receive-form').addEventListener('submit', event => void receive(event as SubmitEvent))
$('send-form').addEventListener('submit', event => void prepareSend(event as SubmitEvent))
$('send-pay').addEventListener('click', () => void pay())
$('send-cancel').addEventListener('click', () => {
  pending = undefined
  show('send-confirm', false)
  show('send-choice', false)
})
$('connect-form').addEventListener('submit', event => void connect(event as SubmitEvent))
$('invoice-copy').addEventListener('click', () =>
  void copy($<HTMLTextAreaElement>('invoice-text').value, $('invoice-copy') as HTMLButtonElement, $<HTMLTextAreaElement>('invoice-text')))
$('connection-copy').addEventListener('click', () =>
  void copy($<HTMLTextAreaElement>('connection-text').value, $('connection-copy') as HTMLButtonElement, $<HTMLTextAreaElement>('connection-text')))
window.addEventListener('hashchange', () => location.reload())

if (secret === '') refuse('This page opens a wallet from a link that ends in #wl_…; this address has no such part. Open the whole link you were given.')
else void refresh()
