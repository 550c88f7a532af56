// NWC connections of one wallet: the operator picks the user, the console asks for a user token for it
// (OperatorUserToken) and then uses the user's own NWC operations: create with a budget (the connection string is
// shown once, with its QR code), list with spend against budget, revoke.
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Copy, Field, Qr, Section, Select, Status, Table, sats, short, submit, useAction, when } from '../parts.js'
import { WalletPicker } from '../wallet-picker.js'

/** A user token for an app user, so a page can call the user's own operations. */
export const actAs = (identifier: string) =>
  call<{ token: string; user_id: string }>('/api/operator/users/token', { body: { identifier: identifier.trim() } })

export interface Connection {
  connection_id: string
  name: string
  client_pubkey: string
  methods: string[]
  budget?: { amount_sats: number; interval: string }
  spent_sats: number
  expires_at_unix: number
  created_at_unix: number
  revoked: boolean
}

export function Nwc() {
  const [identifier, setIdentifier] = useState('')
  const [token, setToken] = useState<{ identifier: string; token: string } | undefined>()
  const [connections, setConnections] = useState<Connection[]>([])
  const [form, setForm] = useState({ name: '', budget: '10000', interval: 'DAY' })
  const [created, setCreated] = useState<string | undefined>()
  const action = useAction()

  const refresh = async (bearer: string) => {
    const answer = await call<{ connections: Connection[] }>('/api/user/nwc/list', { method: 'POST', bearer })
    setConnections(answer.connections)
  }
  return (
    <>
      <h1>NWC connections</h1>
      <Section title="Wallet">
        <form class="row" onSubmit={submit(() => action.run(async () => {
          const { token: bearer } = await actAs(identifier)
          setToken({ identifier: identifier.trim(), token: bearer })
          setCreated(undefined)
          await refresh(bearer)
        }))}>
          <WalletPicker label="User identifier" name="nwc-user" pick="identifier" required value={identifier} onChange={setIdentifier} />
          <button type="submit">Open</button>
        </form>
      </Section>
      <Status error={action.error} ok={action.ok} />
      {token && (
        <>
          <Section title={`New connection for ${token.identifier}`}>
            <form onSubmit={submit(() => action.run(async () => {
              const budget = Number(form.budget) > 0 ? { amount_sats: Number(form.budget), interval: form.interval } : undefined
              const answer = await call('/api/user/nwc/create', { bearer: token.token, body: { name: form.name.trim(), ...(budget ? { budget } : {}) } })
              setCreated(answer.connection_uri)
              setForm({ ...form, name: '' })
              await refresh(token.token)
              return 'Connection created: scan the code with the wallet app now; the secret is not shown again.'
            }))}>
              <Field label="Connection name" name="nwc-name" required value={form.name} onInput={e => setForm({ ...form, name: e.currentTarget.value })} />
              <Field label="Budget (sats, 0 for none)" name="nwc-budget" type="number" min="0" value={form.budget} onInput={e => setForm({ ...form, budget: e.currentTarget.value })} />
              <Select label="Budget period" value={form.interval} onChange={interval => setForm({ ...form, interval })}
                options={[['DAY', 'per day'], ['WEEK', 'per week'], ['MONTH', 'per month']]} />
              <button type="submit" disabled={action.busy}>Create connection</button>
            </form>
            {created && (
              <div class="secret" data-testid="nwc-created">
                <Qr text={created} label="QR code of the NWC connection string" />
                <label class="field">
                  <span>Connection string (shown once)</span>
                  <textarea readOnly rows={4} value={created} />
                </label>
                <Copy text={created} what="the connection string" />
              </div>
            )}
          </Section>
          <Table caption={`Connections of ${token.identifier}`} head={['Name', 'Client', 'Spent / budget', 'Expires', 'Created', 'State']}
            rows={connections.map(c => [
              c.name,
              short(c.client_pubkey, 6),
              c.budget ? `${sats(c.spent_sats)} of ${sats(c.budget.amount_sats)} per ${c.budget.interval.toLowerCase()}` : `${sats(c.spent_sats)} (no budget)`,
              c.expires_at_unix ? when(c.expires_at_unix) : 'never',
              when(c.created_at_unix),
              c.revoked ? 'revoked' : (
                <button type="button" class="danger" aria-label={`Revoke ${c.name}`} onClick={() => confirm(`Revoke ${c.name}? The app holding it can no longer use this wallet.`) && action.run(async () => {
                  await call('/api/user/nwc/revoke', { bearer: token.token, body: { connection_id: c.connection_id } })
                  await refresh(token.token)
                  return `${c.name} revoked.`
                })}>Revoke</button>
              ),
            ])} empty="No connection yet." />
        </>
      )}
    </>
  )
}
