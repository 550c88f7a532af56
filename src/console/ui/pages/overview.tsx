// Overview: the node, the books, traffic in the last minute, relays, and mock mode shown loudly.
import { call } from '../api.js'
import { Section, Status, Table, sats, useAction, useLoad, when } from '../parts.js'

interface About {
  backend: string
  network: string
  mock: boolean
  relays: { url: string; connected: boolean; queued: number }[]
  public_relays: { urls: string[]; loopback_only: boolean }
  embedded_relay: {
    connections: number | null
    max_connections: number
    store_bytes: number | null
    file_bytes: number | null
    memory_bytes: number | null
    max_store_bytes: number
    disk_low: boolean
    refused: Record<string, number>
  } | null
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

interface Audit {
  ran: boolean
  ok: boolean
  at: number
  wallets: number
  transactions: number
  wallets_total_sats: number
  problems: string[]
}

export function Overview() {
  const about = useLoad(() => call<About>('/console/api/about'), [], 5000)
  const info = useLoad(() => call('/api/admin/node/getinfo', { body: { nodeId: 0 } }), [], 5000)
  const books = useLoad(() => call('/api/admin/assets/liabilities', { body: {} }))
  const channels = useLoad(() => call('/api/admin/channels'))
  const errors = useLoad(() => call('/api/reports/errors', { method: 'POST' }), [], 5000)
  const recent = useLoad(() => call('/api/operator/payments', { query: { since: Math.floor(Date.now() / 1000) - 60, limit: 500 } }), [], 5000)
  const audit = useLoad(() => call<Audit>('/api/operator/audit'))
  const run = useAction()

  const node = books.data?.lnds?.[0]?.tracked
  const assets = node ? node.confirmed_balance + node.channels_balance : undefined
  const openChannels: any[] = channels.data?.open_channels ?? []
  return (
    <>
      <h1>Overview</h1>
      {about.data?.mock && (
        <p class="mock-banner" role="alert">
          MOCK MODE: test controls are on — balances can be set and invoices marked paid without any payment. Never
          run a real service like this.
        </p>
      )}
      <div class="grid">
        <Section title="Node">
          <Status error={info.error ?? about.error} />
          <dl>
            <dt>Backend</dt><dd>{about.data?.backend ?? '…'}</dd>
            <dt>Network</dt><dd>{about.data?.network ?? '…'}</dd>
            <dt>Alias</dt><dd>{info.data?.alias ?? '…'}</dd>
            <dt>Node link</dt><dd class={info.error ? 'error' : undefined}>{info.error ? 'NOT connected' : info.data ? 'connected' : '…'}</dd>
            <dt>Synced</dt>
            <dd>{info.data ? `${info.data.synced_to_chain ? 'chain ✓' : 'chain ✗'} · ${info.data.synced_to_graph ? 'graph ✓' : 'graph ✗'}` : '…'}</dd>
            <dt>Channels</dt><dd>{channels.data ? `${openChannels.filter(c => c.active).length} active of ${openChannels.length}` : '…'}</dd>
            <dt>On-chain</dt><dd>{node ? sats(node.confirmed_balance) : '…'}{node?.unconfirmed_balance ? ` (+${sats(node.unconfirmed_balance)} unconfirmed)` : ''}</dd>
            <dt>In channels</dt><dd>{node ? sats(node.channels_balance) : '…'}</dd>
          </dl>
        </Section>
        <Section title="Books">
          <Status error={books.error ?? audit.error} />
          <dl>
            <dt>Users' total</dt><dd data-testid="users-total">{books.data ? sats(books.data.users_balance) : '…'}</dd>
            <dt>Node assets</dt><dd>{assets !== undefined ? sats(assets) : '…'}</dd>
            <dt>Last audit</dt>
            <dd data-testid="audit-result">
              {audit.data ? (audit.data.ran ? `${audit.data.ok ? 'clean' : 'FAILED'} at ${when(audit.data.at)} (${audit.data.transactions} transactions)` : 'not run yet') : '…'}
            </dd>
          </dl>
          {audit.data?.problems.length ? <ul class="problems">{audit.data.problems.map(p => <li>{p}</li>)}</ul> : null}
          <button type="button" disabled={run.busy} onClick={() => run.run(async () => {
            const result = await call<Audit>('/api/operator/audit', { method: 'POST' })
            audit.reload()
            return result.ok ? 'The books are clean.' : 'The audit found problems.'
          })}>{run.busy ? 'Auditing…' : 'Run the audit'}</button>
          <Status error={run.error} ok={run.ok} />
        </Section>
        <Section title="Last minute">
          <Status error={errors.error ?? recent.error} />
          <dl>
            <dt>Payments</dt><dd data-testid="payments-minute">{recent.data ? recent.data.payments.length : '…'}</dd>
            <dt>Calls</dt><dd>{errors.data ? errors.data.past1m.total : '…'}</dd>
            <dt>Errors</dt><dd>{errors.data ? errors.data.past1m.errors : '…'}</dd>
            <dt>Errors, last hour</dt><dd>{errors.data ? `${errors.data.past1h.errors} of ${errors.data.past1h.total}` : '…'}</dd>
          </dl>
        </Section>
        <Section title="Relays">
          <Table caption="Relays the daemon serves apps on" head={['Relay', 'State', 'Waiting to send']}
            rows={(about.data?.relays ?? []).map(r => [r.url, r.connected ? 'connected' : 'NOT connected', r.queued])} empty="No relay link yet." />
          {about.data && (
            <dl data-testid="public-relays">
              <dt>Named in connection strings</dt><dd>{about.data.public_relays.urls.join(', ')}</dd>
              {about.data.public_relays.loopback_only && (
                <><dt>Reachable from</dt><dd class="error">this machine only: NWC strings, nprofiles and CLINK pointers name a
                  loopback relay, which a phone or a wallet elsewhere cannot reach. Set <code>[nostr] public_relays</code> to
                  the relay's public wss:// address.</dd></>
              )}
            </dl>
          )}
          {about.data?.embedded_relay && (() => {
            const embedded = about.data.embedded_relay
            const refused = Object.entries(embedded.refused).map(([why, n]) => `${why} ${n}`).join(', ')
            return (
              <dl data-testid="embedded-relay">
                <dt>Embedded relay connections</dt><dd>{embedded.connections ?? '…'} of {embedded.max_connections}</dd>
                <dt>Embedded relay store</dt>
                <dd>{embedded.store_bytes == null ? '…' : mib(embedded.store_bytes)} of {mib(embedded.max_store_bytes)} quota{embedded.file_bytes == null ? '' : ` (${mib(embedded.file_bytes)} on disk)`}{embedded.memory_bytes == null ? '' : `, ${mib(embedded.memory_bytes)} of requests and replies in memory`}</dd>
                {embedded.disk_low && <><dt>Disk</dt><dd class="error">LOW: the relay refuses new events</dd></>}
                <dt>Refused since start</dt><dd>{refused || 'none'}</dd>
              </dl>
            )
          })()}
        </Section>
      </div>
    </>
  )
}
