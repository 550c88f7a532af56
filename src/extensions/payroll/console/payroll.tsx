// Payroll: contracts (create, pause, resume, pay now, delete), each one's schedule, the payout runs and their
// CSV export. All operator routes of the payroll extension.
import { useState } from 'preact/hooks'
import { call } from '../../../console/ui/api.js'
import { Field, Section, Select, Status, Table, submit, useAction, useLoad } from '../../../console/ui/parts.js'
import { WalletPicker } from '../../../console/ui/wallet-picker.js'

const base = '/payroll/api/v1'

interface Contract {
  id: string
  name: string
  employee_wallet: string
  source_wallet: string
  amount: string
  currency: string
  frequency: string
  start_date: string
  total_periods: number
  periods_done: number
  status: string
  paused_reason: string
}

const today = () => new Date().toISOString().slice(0, 10)

export function Payroll() {
  const contracts = useLoad(() => call<Contract[]>(`${base}/contracts`))
  const payouts = useLoad(() => call<any[]>(`${base}/payouts`))
  const [schedule, setSchedule] = useState<{ name: string; paydays: { period: number; payday: string }[] } | undefined>()
  const [form, setForm] = useState({ name: '', employee_wallet: '', source_wallet: '', amount: '', currency: 'sat', frequency: 'monthly', start_date: today(), total_periods: '12' })
  const action = useAction()
  const reload = () => {
    contracts.reload()
    payouts.reload()
  }
  const act = (message: string, fn: () => Promise<unknown>) => action.run(async () => {
    await fn()
    reload()
    return message
  })
  const exportCsv = () => action.run(async () => {
    const csv = await call<string>(`${base}/payouts.csv`)
    const link = document.createElement('a')
    link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }))
    link.download = 'payouts.csv'
    link.click()
    URL.revokeObjectURL(link.href)
    return 'payouts.csv saved.'
  })
  const input = (key: keyof typeof form) => (e: { currentTarget: HTMLInputElement }) => setForm({ ...form, [key]: e.currentTarget.value })
  return (
    <>
      <h1>Payroll</h1>
      <Status error={contracts.error ?? action.error} ok={action.ok} />
      <Section title="New contract">
        <form class="row" onSubmit={submit(() => act('Contract created.', () => call(`${base}/contracts`, { body: { ...form, total_periods: Number(form.total_periods) } })))}>
          <Field label="Contract name" required value={form.name} onInput={input('name')} />
          <WalletPicker label="Employee wallet" pick="user_id" required value={form.employee_wallet} onChange={employee_wallet => setForm({ ...form, employee_wallet })} />
          <WalletPicker label="Paying wallet" pick="user_id" required value={form.source_wallet} onChange={source_wallet => setForm({ ...form, source_wallet })} />
          <Field label="Amount per period" required inputMode="decimal" value={form.amount} onInput={input('amount')} />
          <Field label="Currency" required value={form.currency} onInput={input('currency')} />
          <Select label="Frequency" value={form.frequency} onChange={frequency => setForm({ ...form, frequency })}
            options={['daily', 'weekly', 'biweekly', 'monthly', 'quarterly', 'yearly'].map(f => [f, f])} />
          <Field label="First payday" type="date" required value={form.start_date} onInput={input('start_date')} />
          <Field label="Periods" type="number" min="1" required value={form.total_periods} onInput={input('total_periods')} />
          <button type="submit">Create contract</button>
        </form>
      </Section>
      <Section title="Contracts">
        <Table caption="Contracts" head={['Name', 'Amount', 'Every', 'Done', 'Status', 'Actions']}
          rows={(contracts.data ?? []).map(c => [
            c.name,
            `${c.amount} ${c.currency}`,
            c.frequency,
            `${c.periods_done} of ${c.total_periods}`,
            c.status + (c.paused_reason ? `: ${c.paused_reason}` : ''),
            <span class="actions">
              <button type="button" class="secondary" onClick={() => action.run(async () => {
                setSchedule({ name: c.name, paydays: (await call(`${base}/contracts/${c.id}/schedule`)).paydays })
              })}>Schedule</button>
              {c.status === 'active'
                ? <button type="button" class="secondary" onClick={() => act('Paused.', () => call(`${base}/contracts/${c.id}/pause`, { method: 'POST' }))}>Pause</button>
                : <button type="button" class="secondary" onClick={() => act('Resumed.', () => call(`${base}/contracts/${c.id}/resume`, { body: {} }))}>Resume</button>}
              <button type="button" onClick={() => confirm(`Pay ${c.name} now? Its payees are paid from the source wallet.`) && act('Paid.', () => call(`${base}/contracts/${c.id}/pay-now`, { body: {} }))}>Pay now</button>
              <button type="button" class="danger" aria-label={`Delete ${c.name}`} onClick={() => confirm(`Delete ${c.name}?`) && act('Deleted.', () => call(`${base}/contracts/${c.id}`, { method: 'DELETE' }))}>Delete</button>
            </span>,
          ])} empty="No contract yet." />
        {schedule && (
          <Table caption={`Paydays of ${schedule.name}`} head={['Period', 'Payday']} rows={schedule.paydays.map(p => [p.period, p.payday])} />
        )}
      </Section>
      <Section title="Runs">
        <p><button type="button" class="secondary" onClick={exportCsv}>Export CSV</button></p>
        <Table caption="Payouts" head={['Contract', 'Period', 'Payday', 'Status', 'Amount', 'Detail']}
          rows={(payouts.data ?? []).map(p => [p.contract_name, p.period, p.payday, p.status, `${p.amount} ${p.currency}`, p.detail])} empty="No payout yet." />
      </Section>
    </>
  )
}
