// One wallet's own page (#/wallet?id=<user id>): its balance, its ids to copy (user id, app user and app, Nostr
// key), its invoices and payments a page at a time (OperatorListPayments for the user id) and, for an app user, its
// NWC connections with Revoke (through a user token, as the NWC page does).
import { useState } from 'preact/hooks'
import { npubEncode } from 'nostr-tools/nip19'
import { call } from '../api.js'
import { Copy, Section, Status, Table, sats, short, useAction, useLoad, when } from '../parts.js'
import { findWallets } from '../wallet-picker.js'
import { actAs, type Connection } from './nwc.js'
import type { PaymentRow } from './payments.js'

/** The address of a wallet's page: every list of wallets links each one here. */
const pageSize = 20
// OperatorListPayments answers at most 500 rows: the history is paged within the newest 500.
const maxRows = 500
const walletId = () => new URLSearchParams(location.hash.split('?')[1] ?? '').get('id') ?? ''

function Id(props: { label: string; value: string; testId?: string }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd class="id-line">
        <span class="mono wrap" data-testid={props.testId}>{props.value}</span>
        <Copy text={props.value} what={props.label[0]!.toLowerCase() + props.label.slice(1)} />
      </dd>
    </>
  )
}

export function Wallet() {
  const id = walletId()
  // One row per app identity of the wallet (an app's owner wallet has none: one row with an empty identifier).
  const rows = useLoad(() => findWallets(id, 50).then(found => found.filter(row => row.user_id === id)), [id])
  const wallet = rows.data?.[0]
  const identities = (rows.data ?? []).filter(row => row.identifier !== '')
  const [page, setPage] = useState(0)
  const history = useLoad(
    () => call<{ payments: PaymentRow[] }>('/api/operator/payments', { query: { query: id, limit: Math.min(maxRows, (page + 1) * pageSize + 1) } }).then(r => r.payments),
    [id, page],
  )
  const shown = (history.data ?? []).slice(page * pageSize, (page + 1) * pageSize)
  const older = (history.data?.length ?? 0) > (page + 1) * pageSize

  if (!id) return <><h1>Wallet</h1><p>No wallet chosen: open one from <a href="#/users">Users &amp; wallets</a>.</p></>
  if (rows.data && !wallet) return <><h1>Wallet</h1><Status error={`No wallet with the id ${id}.`} /></>
  const name = wallet ? wallet.identifier || `owner of ${wallet.app_name}` : '…'
  return (
    <>
      <h1>Wallet {name}</h1>
      <Status error={rows.error} />
      <div class="grid">
        <Section title="Balance">
          <dl>
            <dt>Balance</dt><dd data-testid="wallet-balance">{wallet ? sats(wallet.balance_sats) : '…'}</dd>
            <dt>State</dt><dd>{wallet ? (wallet.locked ? 'banned' : 'active') : '…'}</dd>
            <dt>Created</dt><dd>{wallet ? when(wallet.created_at) : '…'}</dd>
          </dl>
        </Section>
        <Section title="Ids">
          <dl class="ids">
            <Id label="User id" value={id} testId="wallet-user-id" />
            {wallet && !wallet.identifier && <><dt>Owner of</dt><dd>{wallet.app_name}</dd></>}
            {identities.map(row => (
              <>
                <Id label={`App user id in ${row.app_name}`} value={row.identifier} />
                <Id label={`App id of ${row.app_name}`} value={row.app_id} />
                {row.nostr_pub && <Id label="Nostr key (npub)" value={npubEncode(row.nostr_pub)} />}
                {row.nostr_pub && <Id label="Nostr key (hex)" value={row.nostr_pub} />}
              </>
            ))}
            {wallet && identities.every(row => !row.nostr_pub) && <><dt>Nostr key</dt><dd>none: this wallet is reached through its app's token</dd></>}
          </dl>
        </Section>
      </div>
      <Section title="History">
        <Status error={history.error} />
        <Table caption={`Invoices and payments of ${name}, newest first`} head={['When', 'Direction', 'Amount', 'Fees', 'Status', 'Memo', 'Hash']}
          rows={shown.map(p => [
            when(p.created_at),
            p.direction === 'incoming' ? 'in' : 'out',
            sats(p.amount_sats),
            p.direction === 'outgoing' ? `${sats(p.service_fee_sats)} + ${sats(p.routing_fee_sats)} routing` : '—',
            p.status,
            p.memo || '—',
            <a href={`#/payments?query=${encodeURIComponent(p.payment_hash)}`} title={p.payment_hash}>{short(p.payment_hash, 6)}</a>,
          ])}
          empty={history.data ? 'No invoice or payment yet.' : 'Loading…'} />
        <div class="row">
          <span data-testid="history-range">{shown.length === 0 ? 'None' : `${page * pageSize + 1}–${page * pageSize + shown.length}`}</span>
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>Newer</button>
          <button type="button" disabled={!older} onClick={() => setPage(page + 1)}>Older</button>
        </div>
      </Section>
      {identities.map(row => <NwcConnections key={row.identifier} identifier={row.identifier} />)}
      {wallet && identities.length === 0 && (
        <Section title="NWC connections">
          <p>An app's owner wallet has no NWC connections: they belong to the app's users.</p>
        </Section>
      )}
    </>
  )
}

function NwcConnections(props: { identifier: string }) {
  const action = useAction()
  const list = useLoad(async () => {
    const { token } = await actAs(props.identifier)
    const answer = await call<{ connections: Connection[] }>('/api/user/nwc/list', { method: 'POST', bearer: token })
    return { token, connections: answer.connections }
  }, [props.identifier])
  return (
    <Section title={`NWC connections of ${props.identifier}`}>
      <Status error={list.error ?? action.error} ok={action.ok} />
      <Table caption={`NWC connections of ${props.identifier}`} head={['Name', 'Client', 'Spent / budget', 'Created', 'State']}
        rows={(list.data?.connections ?? []).map(c => [
          c.name,
          <span class="mono" title={c.client_pubkey}>{short(c.client_pubkey, 6)}</span>,
          c.budget ? `${sats(c.spent_sats)} of ${sats(c.budget.amount_sats)} per ${c.budget.interval.toLowerCase()}` : `${sats(c.spent_sats)} (no budget)`,
          when(c.created_at_unix),
          c.revoked ? 'revoked' : (
            <button type="button" class="danger" aria-label={`Revoke ${c.name}`} disabled={action.busy}
              onClick={() => confirm(`Revoke ${c.name} of ${props.identifier}? The app holding it can no longer use this wallet.`) && action.run(async () => {
                await call('/api/user/nwc/revoke', { bearer: list.data!.token, body: { connection_id: c.connection_id } })
                list.reload()
                return `${c.name} revoked.`
              })}>Revoke</button>
          ),
        ])}
        empty="No NWC connection." />
      <p><a href="#/nwc">New connection (NWC page)</a></p>
    </Section>
  )
}
