// Apps: the list, adding one, and rotating an app's token (OperatorRotateAppToken: the old token stops working).
// A token is shown once, here, and kept nowhere else. Each app's nprofile (its key and the relays the daemon names in
// connection strings) is there to copy, for a client that connects to the app over Nostr.
import { useState } from 'preact/hooks'
import { nprofileEncode } from 'nostr-tools/nip19'
import { call } from '../api.js'
import { Copy, Check, Field, Section, Status, Table, sats, short, submit, useAction, useLoad, when } from '../parts.js'

export interface AppRow {
  id: string
  name: string
  npub: string
  allow_user_creation: boolean
  users: number
  owner_balance_sats: number
  created_at: number
}

export const listApps = () => call<{ apps: AppRow[] }>('/api/operator/apps').then(r => r.apps)

/** The app's current token (AuthApp: the generation in force; other pages act as the app with it). */
export const appToken = (name: string) => call<{ auth_token: string }>('/api/admin/app/auth', { body: { name } }).then(r => r.auth_token)

export function Apps() {
  const apps = useLoad(listApps)
  const relays = useLoad(() => call<{ public_relays: { urls: string[] } }>('/console/api/about').then(r => r.public_relays.urls))
  const [name, setName] = useState('')
  const [allow, setAllow] = useState(true)
  const [token, setToken] = useState<{ app: string; token: string } | undefined>()
  const action = useAction()
  return (
    <>
      <h1>Apps</h1>
      <Section title="Add an app">
        <form onSubmit={submit(() => action.run(async () => {
          const added = await call('/api/admin/app/add', { body: { name: name.trim(), allow_user_creation: allow } })
          setToken({ app: added.app.name, token: added.auth_token })
          setName('')
          apps.reload()
          return `App ${added.app.name} added.`
        }))}>
          <Field label="App name" name="app-name" required value={name} onInput={e => setName(e.currentTarget.value)} />
          <Check label="Users may be created through this app" checked={allow} onChange={setAllow} />
          <button type="submit" disabled={action.busy}>Add app</button>
        </form>
        <Status error={action.error} ok={action.ok} />
        {token && (
          <div class="secret">
            <label class="field">
              <span>App token of {token.app} (shown once; copy it now)</span>
              <textarea readOnly rows={3} value={token.token} />
            </label>
            <Copy text={token.token} what={`the app token of ${token.app}`} />
          </div>
        )}
      </Section>
      <Section title="Applications">
        <Status error={apps.error} />
        <Table caption="Applications" head={['Name', 'Users', 'Owner balance', 'Users may join', 'Created', 'nprofile', 'Token']}
          rows={(apps.data ?? []).map(app => [
            <span title={app.id}>{app.name}</span>,
            app.users,
            sats(app.owner_balance_sats),
            app.allow_user_creation ? 'yes' : 'no',
            when(app.created_at),
            relays.data ? <Copy text={nprofileEncode({ pubkey: app.npub, relays: relays.data })} what={`the nprofile of ${app.name}`} /> : '…',
            <button type="button" class="secondary" aria-label={`Rotate the token of ${app.name}`}
              onClick={() => confirm(`Rotate the token of ${app.name}? Every token issued for it before stops working at once.`) && action.run(async () => {
                const rotated = await call<{ auth_token: string }>('/api/operator/apps/token', { body: { app_id: app.id } })
                setToken({ app: app.name, token: rotated.auth_token })
                return `A new token for ${app.name} is shown above; the old one no longer works.`
              })}>Rotate token</button>,
          ])} />
        <p class="hint">App keys (Nostr): {(apps.data ?? []).map(app => `${app.name} ${short(app.npub, 8)}`).join(' · ') || '—'}</p>
      </Section>
    </>
  )
}
