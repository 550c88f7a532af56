// Users and wallets: search by identifier, user id or npub; every wallet a page at a time (all-wallets.tsx);
// balance, history (the payments page filtered to the wallet), ban; a wallet page link for a user (shown once) and
// its revocation; add a user to an app; fund it in test mode; pay from one user to another.
import { useRef, useState } from 'preact/hooks'
import { call } from '../api.js'
import { Copy, Field, Qr, Section, Select, Status, Table, sats, short, submit, useAction, useLoad, when, walletHref } from '../parts.js'
import { appToken, listApps } from './apps.js'
import { AllWallets } from './all-wallets.js'
import { WalletPicker, findWallets } from '../wallet-picker.js'

const searchUsers = (query: string) => findWallets(query, 100)

/** The app an app user belongs to, for the calls that need its token. */
async function appOf(identifier: string): Promise<string> {
  const found = (await searchUsers(identifier)).find(user => user.identifier === identifier)
  if (!found) throw new Error(`No user with the identifier ${identifier}.`)
  return found.app_name
}

export function Users() {
  const [query, setQuery] = useState('')
  const [shown, setShown] = useState('')
  const users = useLoad(() => searchUsers(shown), [shown])
  const apps = useLoad(listApps)
  const action = useAction()
  const [app, setApp] = useState('')
  const [identifier, setIdentifier] = useState('')
  const [fund, setFund] = useState({ identifier: '', amount: '1000' })
  const [pay, setPay] = useState({ from: '', to: '', amount: '100' })
  const [bill, setBill] = useState({ from: '', invoice: '' })
  const [receive, setReceive] = useState({ identifier: '', amount: '1000', memo: '' })
  const [receiving, setReceiving] = useState<{ identifier: string; invoice: string; sats: number } | undefined>()
  // A wallet link just created: its secret is shown this once (only its hash is kept).
  const [walletLink, setWalletLink] = useState<{ identifier: string; url: string } | undefined>()
  // The invoice shown turns paid on the page: its row in the operator's list, asked every two seconds until it is
  // paid or expired (then the answer is kept and nothing more is asked).
  const settled = useRef<{ invoice: string; status: string } | undefined>(undefined)
  const receipt = useLoad(async () => {
    if (!receiving) return undefined
    if (settled.current?.invoice === receiving.invoice) return settled.current
    const { payments } = await call<{ payments: { payment_request: string; status: string }[] }>('/api/operator/payments', {
      query: { query: receiving.identifier, limit: 50 },
    })
    const answer = { invoice: receiving.invoice, status: payments.find(p => p.payment_request === receiving.invoice)?.status ?? 'unpaid' }
    if (answer.status !== 'unpaid') settled.current = answer
    return answer
  }, [receiving], 2000)
  const appName = app || apps.data?.[0]?.name || ''

  // Bumped by every change made here, so that the list of all wallets is read again too.
  const [changes, setChanges] = useState(0)
  const done = (message: string) => {
    users.reload()
    setChanges(n => n + 1)
    return message
  }
  return (
    <>
      <h1>Users &amp; wallets</h1>
      <Section title="Find a wallet">
        <form class="row" onSubmit={submit(() => setShown(query.trim()))}>
          <Field label="Identifier, user id or npub" name="user-query" value={query} onInput={e => setQuery(e.currentTarget.value)} />
          <button type="submit">Search</button>
        </form>
        <Status error={users.error} />
        <Table caption="Wallets" head={['Identifier', 'App', 'Balance', 'State', 'Created', 'Actions']}
          rows={(users.data ?? []).map(user => [
            <a href={walletHref(user.user_id)} title={user.user_id}>{user.identifier || `owner of ${user.app_name}`}</a>,
            user.app_name,
            <span data-testid={`balance-${user.identifier}`}>{sats(user.balance_sats)}</span>,
            user.locked ? 'banned' : 'active',
            when(user.created_at),
            <span class="actions">
              <a href={`#/payments?query=${encodeURIComponent(user.identifier || user.user_id)}`}>History</a>
              {user.identifier && !user.locked && (
                <button type="button" class="secondary" aria-label={`Wallet link for ${user.identifier}`}
                  onClick={() => confirm(`Create a wallet page link for ${user.identifier}? A link made for this wallet before stops working.`) &&
                    action.run(async () => {
                      const link = await call<{ url: string }>('/api/operator/users/wallet-link', { body: { identifier: user.identifier } })
                      setWalletLink({ identifier: user.identifier, url: link.url })
                      return `A wallet link for ${user.identifier} is shown below, this once.`
                    })}>Wallet link</button>
              )}
              {user.identifier && (
                <button type="button" class="danger" aria-label={`Revoke the wallet link of ${user.identifier}`}
                  onClick={() => confirm(`Revoke the wallet link of ${user.identifier}? Its wallet page stops working for whoever holds it.`) &&
                    action.run(async () => {
                      const { revoked } = await call<{ revoked: boolean }>('/api/operator/users/wallet-link/revoke', { body: { identifier: user.identifier } })
                      if (walletLink?.identifier === user.identifier) setWalletLink(undefined)
                      return revoked ? `The wallet link of ${user.identifier} is revoked.` : `${user.identifier} had no wallet link.`
                    })}>Revoke link</button>
              )}
              {!user.locked && (
                <button type="button" class="danger" aria-label={`Ban ${user.identifier || short(user.user_id)}`}
                  onClick={() => confirm(`Ban ${user.identifier || user.user_id}? Its balance is seized.`) &&
                    action.run(async () => {
                      const answer = await call('/api/admin/user/ban', { body: { user_id: user.user_id } })
                      return done(`Banned; it held ${sats(answer.balance_sats)}.`)
                    })}>Ban</button>
              )}
            </span>,
          ])} />
      </Section>
      <Status error={action.error} ok={action.ok} />
      {walletLink && (
        <Section title={`Wallet link for ${walletLink.identifier}`}>
          <div data-testid="wallet-link">
            <p>Hand this to {walletLink.identifier}: it opens their wallet page. It is shown only now; anyone holding it can spend from the wallet until it is revoked.</p>
            <textarea readOnly rows={3} aria-label={`The wallet link for ${walletLink.identifier}`} value={walletLink.url} />
            <Copy text={walletLink.url} what="the wallet link" />
          </div>
        </Section>
      )}
      <AllWallets reloadKey={changes} />
      <div class="grid">
        <Section title="Add a user">
          <form onSubmit={submit(() => action.run(async () => {
            const token = await appToken(appName)
            await call('/api/app/user/add', { bearer: token, body: { identifier: identifier.trim(), fail_if_exists: true, balance: 0 } })
            setIdentifier('')
            return done(`User ${identifier.trim()} added to ${appName}.`)
          }))}>
            <Select label="App" value={appName} options={(apps.data ?? []).map(a => [a.name, a.name])} onChange={setApp} />
            <Field label="New user's identifier" name="new-identifier" required value={identifier} onInput={e => setIdentifier(e.currentTarget.value)} />
            <button type="submit" disabled={action.busy || !appName}>Add user</button>
          </form>
        </Section>
        <Section title="Fund (test mode)">
          <form onSubmit={submit(() => action.run(async () => {
            if (!confirm(`Set the balance of ${fund.identifier.trim()} to ${sats(Number(fund.amount))}? Test mode: no payment stands behind it.`)) return 'Nothing was changed.'
            const token = await appToken(await appOf(fund.identifier.trim()))
            await call('/api/app/mock/user/blance/set', { bearer: token, body: { user_identifier: fund.identifier.trim(), amount: Number(fund.amount) } })
            return done(`Balance of ${fund.identifier.trim()} set to ${sats(Number(fund.amount))}.`)
          }))}>
            <WalletPicker label="User to fund" name="fund-identifier" pick="identifier" required value={fund.identifier} onChange={identifier => setFund({ ...fund, identifier })} />
            <Field label="New balance (sats)" name="fund-amount" type="number" min="0" required value={fund.amount} onInput={e => setFund({ ...fund, amount: e.currentTarget.value })} />
            <button type="submit" disabled={action.busy}>Set balance</button>
          </form>
        </Section>
        <Section title="Pay between users">
          <form onSubmit={submit(() => action.run(async () => {
            const from = pay.from.trim()
            const to = pay.to.trim()
            const amount = Number(pay.amount)
            const app = await appOf(from)
            const token = await appToken(app)
            // Checked before the receiver's invoice is made, so that a payment refused for these reasons leaves no
            // unpaid invoice behind (and a mistyped receiver is not created by the invoice).
            const appUser = (identifier: string) =>
              call<{ max_withdrawable: number }>('/api/app/user/get', { bearer: token, body: { user_identifier: identifier } })
            const payer = await appUser(from)
            await appUser(to).catch(() => {
              throw new Error(`No user ${to} in ${app}, the app of ${from}: payments between users stay inside one app.`)
            })
            if (amount > payer.max_withdrawable) {
              throw new Error(`${from} can send at most ${sats(payer.max_withdrawable)} (its balance less the service fee); nothing was paid.`)
            }
            if (!confirm(`Pay ${sats(amount)} from ${from} to ${to}, plus the service fee?`)) return 'Nothing was paid.'
            const { invoice } = await call('/api/app/user/add/invoice', { bearer: token, body: {
              receiver_identifier: to, payer_identifier: from, http_callback_url: '',
              invoice_req: { amountSats: amount, memo: `console: ${from} → ${to}` },
            } })
            const paid = await call('/api/app/invoice/pay', { bearer: token, body: { user_identifier: from, invoice, amount: 0 } })
            return done(`Paid ${sats(paid.amount_paid)} from ${from} to ${to} (service fee ${sats(paid.service_fee)}).`)
          }))}>
            <WalletPicker label="From user" name="pay-from" pick="identifier" required value={pay.from} onChange={from => setPay({ ...pay, from })} />
            <WalletPicker label="To user" name="pay-to" pick="identifier" required value={pay.to} onChange={to => setPay({ ...pay, to })} />
            <Field label="Amount (sats)" name="pay-amount" type="number" min="1" required value={pay.amount} onInput={e => setPay({ ...pay, amount: e.currentTarget.value })} />
            <button type="submit" disabled={action.busy}>Pay</button>
          </form>
        </Section>
        <Section title="Receive">
          <form onSubmit={submit(() => action.run(async () => {
            const identifier = receive.identifier.trim()
            const token = await appToken(await appOf(identifier))
            const amount = Number(receive.amount)
            const { invoice } = await call('/api/app/user/add/invoice', { bearer: token, body: {
              receiver_identifier: identifier, payer_identifier: '', http_callback_url: '',
              invoice_req: { amountSats: amount, memo: receive.memo.trim() },
            } })
            setReceiving({ identifier, invoice, sats: amount })
            return `An invoice of ${sats(amount)} for ${identifier} is shown below.`
          }))}>
            <WalletPicker label="Receiving user" name="receive-identifier" pick="identifier" required value={receive.identifier} onChange={identifier => setReceive({ ...receive, identifier })} />
            <Field label="Amount to receive (sats)" name="receive-amount" type="number" min="1" required value={receive.amount} onInput={e => setReceive({ ...receive, amount: e.currentTarget.value })} />
            <Field label="Memo" name="receive-memo" value={receive.memo} onInput={e => setReceive({ ...receive, memo: e.currentTarget.value })} />
            <button type="submit" disabled={action.busy}>Create invoice</button>
          </form>
          {receiving && (
            <div data-testid="receive-invoice">
              <Qr text={receiving.invoice} label={`QR code of the invoice for ${receiving.identifier}`} />
              <textarea readOnly rows={4} aria-label="The invoice" value={receiving.invoice} />
              <Copy text={receiving.invoice} what="the invoice" />
              <p data-testid="receive-state">
                {(() => {
                  // The answer about this invoice only (the one before may still be shown for a moment).
                  const state = receipt.data?.invoice === receiving.invoice ? receipt.data.status : 'unpaid'
                  return state === 'paid' ? `Paid: ${sats(receiving.sats)} to ${receiving.identifier}.` : state === 'expired' ? 'Expired unpaid.' : 'Waiting for the payment…'
                })()}
              </p>
            </div>
          )}
        </Section>
        <Section title="Pay an invoice">
          <form onSubmit={submit(() => action.run(async () => {
            const from = bill.from.trim()
            const token = await appToken(await appOf(from))
            if (!confirm(`Pay this invoice from ${from}'s wallet?`)) return 'Nothing was paid.'
            const paid = await call('/api/app/invoice/pay', { bearer: token, body: { user_identifier: from, invoice: bill.invoice.trim(), amount: 0 } })
            setBill({ ...bill, invoice: '' })
            return done(`Paid ${sats(paid.amount_paid)} from ${from} (service fee ${sats(paid.service_fee)}).`)
          }))}>
            <WalletPicker label="Paying user" name="bill-from" pick="identifier" required value={bill.from} onChange={from => setBill({ ...bill, from })} />
            <Field label="Lightning invoice" name="bill-invoice" required value={bill.invoice} onInput={e => setBill({ ...bill, invoice: e.currentTarget.value })} />
            <button type="submit" disabled={action.busy}>Pay invoice</button>
          </form>
        </Section>
      </div>
    </>
  )
}
