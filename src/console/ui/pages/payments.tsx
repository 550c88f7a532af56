// Invoices and payments across every wallet: search by hash, user, status and date; a row opens its details.
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Field, Section, Select, Status, Table, sats, short, submit, useLoad, when, walletHref } from '../parts.js'

export interface PaymentRow {
  direction: 'incoming' | 'outgoing'
  payment_hash: string
  user_id: string
  identifier: string
  amount_sats: number
  service_fee_sats: number
  routing_fee_sats: number
  internal: boolean
  status: string
  memo: string
  created_at: number
  resolved_at: number
  payment_request: string
  failure_reason: string
}

const hashParams = () => new URLSearchParams(location.hash.split('?')[1] ?? '')
/** A window in unix seconds from the address (the charts' failures link to theirs: #/payments?status=failed&since=…&until=…). */
function hashWindow(): { since: number; until: number } | undefined {
  const since = Number(hashParams().get('since'))
  const until = Number(hashParams().get('until'))
  return Number.isSafeInteger(since) && Number.isSafeInteger(until) && since > 0 && until > since ? { since, until } : undefined
}
const unix = (date: string, endOfDay = false) => (date ? Math.floor(new Date(`${date}T00:00:00`).getTime() / 1000) + (endOfDay ? 86_400 : 0) : undefined)

export function Payments() {
  const [form, setForm] = useState({ query: hashParams().get('query') ?? '', status: hashParams().get('status') ?? '', since: '', until: '' })
  const [search, setSearch] = useState(form)
  // A window from the address holds until the operator searches by date or clears it.
  const [timeWindow, setTimeWindow] = useState(hashWindow)
  const list = useLoad(
    () => call<{ payments: PaymentRow[] }>('/api/operator/payments', {
      query: {
        query: search.query.trim(), status: search.status, limit: 200,
        since: timeWindow?.since ?? unix(search.since), until: timeWindow?.until ?? unix(search.until, true),
      },
    }).then(r => r.payments),
    [search, timeWindow],
  )
  const [open, setOpen] = useState<PaymentRow | undefined>()
  return (
    <>
      <h1>Invoices &amp; payments</h1>
      <Section title="Search">
        {timeWindow && (
          <p class="actions" data-testid="payments-window">Started from {when(timeWindow.since)} to {when(timeWindow.until)}
            <button type="button" class="secondary" onClick={() => setTimeWindow(undefined)}>Any time</button></p>
        )}
        <form class="row" onSubmit={submit(() => {
          if (form.since || form.until) setTimeWindow(undefined)
          setSearch({ ...form })
        })}>
          <Field label="Hash, user id or identifier" name="payment-query" value={form.query} onInput={e => setForm({ ...form, query: e.currentTarget.value })} />
          <Select label="Status" value={form.status} onChange={status => setForm({ ...form, status })}
            options={[['', 'any'], ['succeeded', 'sent'], ['pending', 'sending'], ['failed', 'failed'], ['paid', 'received'], ['unpaid', 'awaiting payment'], ['expired', 'expired']]} />
          <Field label="From date" name="since" type="date" value={form.since} onInput={e => setForm({ ...form, since: e.currentTarget.value })} />
          <Field label="To date" name="until" type="date" value={form.until} onInput={e => setForm({ ...form, until: e.currentTarget.value })} />
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={list.reload}>Refresh</button>
        </form>
      </Section>
      <Status error={list.error} />
      <Table caption="Invoices and payments, newest first" head={['When', 'Direction', 'User', 'Amount', 'Fees', 'Status', 'Hash']}
        rows={(list.data ?? []).map(p => [
          when(p.created_at),
          p.direction === 'incoming' ? 'in' : 'out',
          <a href={walletHref(p.user_id)} title={p.user_id}>{p.identifier || short(p.user_id, 6)}</a>,
          sats(p.amount_sats),
          p.direction === 'outgoing' ? `${sats(p.service_fee_sats)} + ${sats(p.routing_fee_sats)} routing` : '—',
          p.status,
          <button type="button" class="link" aria-label={`Details of ${p.payment_hash}`} onClick={() => setOpen(p)}>{short(p.payment_hash, 6)}</button>,
        ])}
        empty="No invoice or payment matches." />
      {open && (
        <Section title="Details">
          <dl class="details">
            <dt>Payment hash</dt><dd class="mono">{open.payment_hash}</dd>
            <dt>Direction</dt><dd>{open.direction}{open.internal ? ' (between wallets of this service)' : ' (over Lightning)'}</dd>
            <dt>User</dt><dd><a href={walletHref(open.user_id)}>{open.identifier || 'wallet'}</a> <span class="mono">{open.user_id}</span></dd>
            <dt>Amount</dt><dd>{sats(open.amount_sats)}</dd>
            <dt>Service fee</dt><dd>{sats(open.service_fee_sats)}</dd>
            <dt>Routing fee</dt><dd>{sats(open.routing_fee_sats)}</dd>
            <dt>Status</dt><dd>{open.status}{open.failure_reason ? `: ${open.failure_reason}` : ''}</dd>
            <dt>Memo</dt><dd>{open.memo || '—'}</dd>
            <dt>Created</dt><dd>{when(open.created_at)}</dd>
            <dt>Settled</dt><dd>{when(open.resolved_at)}</dd>
            <dt>Invoice</dt><dd class="mono wrap">{open.payment_request}</dd>
          </dl>
          <button type="button" class="secondary" onClick={() => setOpen(undefined)}>Close</button>
        </Section>
      )}
    </>
  )
}
