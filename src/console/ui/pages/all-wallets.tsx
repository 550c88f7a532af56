// Every wallet, most recently active first, a page of twenty at a time: the admin's user view (GetUsersAdminInfo),
// with each wallet's balance, ban state, the app identity it has and the app it owns; each opens its own page.
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Section, Status, Table, sats, short, useLoad, walletHref } from '../parts.js'

interface AdminUser {
  user_id: string
  balance: number
  locked: boolean
  app_users: { app_user_id: string; npub: string; has_callback_url: boolean; has_topic_id: boolean }[]
  owner_of_app_id?: string
}

const pageSize = 20

export function AllWallets(props: { reloadKey: number }) {
  const [skip, setSkip] = useState(0)
  const page = useLoad(
    () => call<{ users: AdminUser[]; total: number }>('/api/admin/users/info', { body: { skip, take: pageSize } }),
    [skip, props.reloadKey],
  )
  const total = page.data?.total ?? 0
  const shown = page.data?.users ?? []
  return (
    <Section title="All wallets">
      <Status error={page.error} />
      <Table caption="All wallets, most recently active first" head={['Wallet', 'Key', 'Balance', 'State', 'Owns app', 'History']}
        empty="No wallet yet."
        rows={shown.map(user => {
          const appUser = user.app_users[0]
          const name = appUser?.app_user_id ?? short(user.user_id)
          return [
            <a href={walletHref(user.user_id)} title={user.user_id} data-testid={`wallet-${name}`}>{name}</a>,
            appUser?.npub ? <span title={appUser.npub}>{short(appUser.npub, 6)}</span> : '—',
            sats(user.balance),
            user.locked ? 'banned' : 'active',
            user.owner_of_app_id ? <span title={user.owner_of_app_id}>{short(user.owner_of_app_id, 6)}</span> : '—',
            <a href={`#/payments?query=${encodeURIComponent(appUser?.app_user_id ?? user.user_id)}`}>History</a>,
          ]
        })} />
      <div class="row">
        <span data-testid="wallets-range">
          {total === 0 ? 'None' : `${skip + 1}–${skip + shown.length} of ${total}`}
        </span>
        <button type="button" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - pageSize))}>Newer</button>
        <button type="button" disabled={skip + pageSize >= total} onClick={() => setSkip(skip + pageSize)}>Older</button>
      </div>
    </Section>
  )
}
