// The console's shell: sign-in, the navigation and the page for the address's hash (#/apps…). Each page is a
// module of ./pages, or of an extension's console/ folder; every call goes through ./api.ts.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import 'uplot/dist/uPlot.min.css'
import './console.css'
import { resumeSession, signIn, signOut, whenSignedOut } from './api.js'
import { Field, Status, submit, useAction } from './parts.js'
import { Overview } from './pages/overview.js'
import { Apps } from './pages/apps.js'
import { Users } from './pages/users.js'
import { Payments } from './pages/payments.js'
import { Nwc } from './pages/nwc.js'
import { Charts } from './pages/charts.js'
import { Models } from './pages/models.js'
import { Links } from './pages/links.js'
import { Node } from './pages/node.js'
import { Wallet } from './pages/wallet.js'
import type { NavPage } from './nav-page.js'
import { extensionConsolePages } from '../../extensions/console.js'

const pages: readonly NavPage[] = [
  ['overview', 'Overview', Overview],
  ['apps', 'Apps', Apps],
  ['users', 'Users & wallets', Users],
  ['payments', 'Invoices & payments', Payments],
  ['node', 'Node', Node],
  ['nwc', 'NWC', Nwc],
  ['links', 'Offers, LNURL & invites', Links],
  ['charts', 'Charts', Charts],
  // Each extension's, from its folder (src/extensions/<name>/console/).
  ...extensionConsolePages,
  ['models', 'Models', Models],
]

// Pages reached from others, not from the navigation: one wallet's own page (#/wallet?id=…).
const linkedPages = [['wallet', Wallet]] as const

const currentPage = () => location.hash.replace(/^#\/?/, '').split('?')[0] || 'overview'

function SignIn(props: { onSignedIn: () => void; reason?: string }) {
  const [token, setToken] = useState('')
  const action = useAction()
  return (
    <main class="signin">
      <h1>relaypay console</h1>
      <form
        onSubmit={submit(() =>
          action.run(async () => {
            await signIn(token)
            setToken('')
            props.onSignedIn()
          }),
        )}
      >
        <Field label="Admin token" type="password" name="token" autoComplete="current-password" value={token} required
          hint="In <data_dir>/admin.token, or [auth] admin_token in the config."
          onInput={e => setToken(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy}>Sign in</button>
        <Status error={action.error ?? props.reason} />
      </form>
    </main>
  )
}

function App() {
  const [signedIn, setSignedIn] = useState<boolean | undefined>(undefined)
  const [reason, setReason] = useState<string | undefined>()
  const [page, setPage] = useState(currentPage())
  // The whole address: one wallet's page opened from another's link is a new page, not the same one.
  const [, setAddress] = useState(location.hash)
  useEffect(() => {
    resumeSession().then(setSignedIn)
    whenSignedOut(() => {
      setReason('Your session ended: sign in again.')
      setSignedIn(false)
    })
    const onHash = () => (setPage(currentPage()), setAddress(location.hash))
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  if (signedIn === undefined) return <p class="loading">Loading…</p>
  if (!signedIn) return <SignIn reason={reason} onSignedIn={() => (setReason(undefined), setSignedIn(true))} />
  const Page = (pages.find(([id]) => id === page) ?? pages[0])[2]
  const Linked = linkedPages.find(([id]) => id === page)?.[1]
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/overview">relaypay</a>
        <nav aria-label="Console pages">
          {pages.map(([id, title]) => (
            <a href={`#/${id}`} aria-current={id === page ? 'page' : undefined}>{title}</a>
          ))}
        </nav>
        <button type="button" class="secondary" onClick={() => signOut().then(() => (setReason('Signed out.'), setSignedIn(false)))}>
          Sign out
        </button>
      </header>
      <main id="page">
        {Linked ? <Linked key={location.hash} /> : <Page />}
      </main>
    </div>
  )
}

render(<App />, document.getElementById('app')!)
