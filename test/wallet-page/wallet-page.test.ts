// The wallet page end to end in Debian's headless Chromium against the real daemon: the operator creates a wallet
// link on the console's users page; the link opens the wallet with its balance; receiving shows an invoice whose QR
// code reads back, and turns paid when another wallet pays it; sending pays another wallet's invoice and the balance
// drops by the amount plus the fee the page names; a paste that is no invoice gets an error a person can act on;
// connecting an app shows an NWC string (and its QR code) a real NIP-47 client uses; at 375 px nothing is beyond the
// right edge; dark mode is dark; and once the operator revokes the link the page refuses it and the app connected on
// the page is refused too.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page, Request } from 'playwright-core'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { NwcTestClient, parseConnectionUri } from '../support/nwc-client.js'
import { findChromium, launchBrowser, type Browser } from '../support/browser.js'
import { screenshotForDocs } from '../support/docs-screenshots.js'

const chromiumPath = findChromium()
const e2e = suite('the wallet page in Chromium')
let daemon: TestDaemon
let browser: Browser
let consolePage: Page
let wallet: Page
let link: string
let dir: string
/** The confirmations the console asked, in order. */
const asked: string[] = []
/** Uncaught errors and CSP refusals on either page: none allowed. */
const pageErrors: string[] = []
const closers: (() => void)[] = []
/** The NIP-47 client on the connection made on the page: it ends with the link. */
let pageConnection: NwcTestClient | undefined
/** The secret of the NWC connection made on the page: never readable in a picture of the page. */
let connectionSecret = ''

let appToken: string
const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
const asApp = () => ({ authorization: `Bearer ${appToken}` })

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
const balanceOf = async (identifier: string) => (await ok('/api/app/user/get', { user_identifier: identifier }, asApp())).info.balance as number
const invoiceFor = async (receiver: string, sats: number) =>
  (await ok('/api/app/user/add/invoice', { receiver_identifier: receiver, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: sats, memo: 'wallet page' } }, asApp())).invoice as string

/** Requests the wallet page has sent and not yet heard back from. */
const inFlight = new Set<Request>()

function watch(page: Page): void {
  page.on('request', request => inFlight.add(request))
  page.on('requestfinished', request => inFlight.delete(request))
  page.on('requestfailed', request => inFlight.delete(request))
  page.on('pageerror', err => pageErrors.push(err.message))
  page.on('console', message => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) pageErrors.push(message.text())
  })
}

/** The text a QR code image on the page reads back as, by zbarimg; undefined where zbarimg is not installed. */
async function readQr(page: Page, name: string): Promise<string | undefined> {
  if (!fs.existsSync('/usr/bin/zbarimg')) {
    // CI installs it and requires it, as it requires the browser: there the codes must be read back.
    if (process.env.RELAYPAY_TEST_REQUIRE_BROWSER) throw new Error('RELAYPAY_TEST_REQUIRE_BROWSER is set but /usr/bin/zbarimg is missing')
    console.log('  note: zbarimg is not installed (apt-get install zbar-tools); the QR code was not decoded')
    return undefined
  }
  const shot = path.join(dir, `${name.replace(/\W+/g, '-')}.png`)
  await page.getByRole('img', { name }).screenshot({ path: shot })
  return spawnSync('/usr/bin/zbarimg', ['-q', '--raw', shot], { encoding: 'utf8' }).stdout.trim()
}

/**
 * Holds the page's own refresh (its balance and history reads, due every 15 s) until the returned function is called,
 * after letting a read already under way finish: on a slow machine a refresh can come due in the middle of a test, and
 * what the test does next must not depend on when.
 */
async function holdRefresh(page: Page): Promise<() => Promise<void>> {
  const reads = /\/api\/user\/(info|operations)$/
  let release!: () => void
  const released = new Promise<void>(resolve => (release = resolve))
  const held: Promise<void>[] = []
  await page.route(reads, route => {
    held.push(released.then(() => route.continue()))
  })
  // Each end of a request is heard after watch() has taken it out of inFlight (its listeners come first).
  await new Promise<void>(resolve => {
    const check = () => {
      if ([...inFlight].some(request => reads.test(request.url()))) return
      page.off('requestfinished', check)
      page.off('requestfailed', check)
      resolve()
    }
    page.on('requestfinished', check)
    page.on('requestfailed', check)
    check()
  })
  return async () => {
    release()
    // Every held read goes on before the route is removed (removing it first would answer them itself).
    await Promise.all(held)
    await page.unroute(reads)
  }
}

const balanceShown = async (page: Page) => (await page.locator('#balance').textContent())!

e2e.before(async () => {
  if (!chromiumPath) return
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-wallet-page-'))
  // LNURL on the loopback address this test daemon listens on, and paying out to it: both are test settings.
  daemon = await startDaemon({ config: '[lnurl]\nallow_loopback = true\n[callbacks]\nallow_loopback = true\n' })
  appToken = (await ok('/api/admin/app/add', { name: 'wallet-shop', allow_user_creation: false }, admin())).auth_token
  for (const identifier of ['erin', 'frank']) await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'erin', amount: 5_000 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'frank', amount: 3_000 }, asApp())
  browser = await launchBrowser(chromiumPath)
  consolePage = await browser.context.newPage()
  consolePage.setDefaultTimeout(10_000)
  consolePage.on('dialog', dialog => {
    asked.push(dialog.message())
    void dialog.accept()
  })
  watch(consolePage)
})
e2e.after(async () => {
  for (const close of closers) close()
  await browser?.close()
  await daemon?.stop()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

/** The users page of the console, signed in, with `identifier` found. */
async function usersPageWith(identifier: string): Promise<void> {
  await consolePage.goto(`${daemon.url}/console/#/users`)
  const signIn = consolePage.getByLabel('Admin token')
  await Promise.race([signIn.waitFor(), consolePage.getByRole('heading', { name: 'Users & wallets' }).waitFor()])
  if (await signIn.isVisible()) {
    await signIn.fill(daemon.adminToken)
    await consolePage.getByRole('button', { name: 'Sign in' }).click()
  }
  await consolePage.getByRole('heading', { name: 'Users & wallets' }).waitFor()
  await consolePage.getByLabel('Identifier, user id or npub').fill(identifier)
  await consolePage.getByRole('button', { name: 'Search' }).click()
  await consolePage.getByTestId(`balance-${identifier}`).waitFor()
}

e2e('the operator creates a wallet link on the users page; it opens the wallet with its balance, under strict headers', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the wallet page was not tested')
  await usersPageWith('erin')
  await consolePage.getByRole('button', { name: 'Wallet link for erin' }).click()
  link = await consolePage.getByLabel('The wallet link for erin', { exact: true }).inputValue()
  assert.is(asked.at(-1), 'Create a wallet page link for erin? A link made for this wallet before stops working.')
  assert.match(link, new RegExp(`^${daemon.url}/wallet/#wl_[0-9a-f]{16}_[0-9a-f]{64}$`))
  daemon.secrets.add('the wallet link', link.split('#')[1])

  wallet = await browser.context.newPage()
  wallet.setDefaultTimeout(10_000)
  watch(wallet)
  const response = (await wallet.goto(link))!
  const headers = response.headers()
  assert.match(headers['content-security-policy'] ?? '', /default-src 'none'; script-src 'sha256-/)
  assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/)
  assert.is(headers['x-frame-options'], 'DENY')
  assert.is(headers['x-content-type-options'], 'nosniff')
  await wallet.getByText('5,000 sats', { exact: true }).waitFor()
  assert.is(await wallet.evaluate<number>('localStorage.length + sessionStorage.length'), 0, 'nothing kept in web storage')
})

e2e('receive: the invoice is shown as text and a QR code, and turns paid when another wallet pays it', async () => {
  if (!chromiumPath) return
  await wallet.getByLabel('Amount (sats)').fill('1234')
  await wallet.getByLabel('Note for the payer (optional)').fill('lunch')
  await wallet.getByRole('button', { name: 'Create invoice' }).click()
  await wallet.getByText('Waiting for the payment of 1,234 sats…').waitFor()
  const invoice = await wallet.getByLabel('The invoice').inputValue()
  assert.match(invoice, /^lnbc/)
  const read = await readQr(wallet, 'QR code of the invoice')
  if (read !== undefined) assert.is(read.toLowerCase(), `lightning:${invoice}`)
  const paid = await ok('/api/app/invoice/pay', { user_identifier: 'frank', invoice, amount: 0 }, asApp())
  assert.is(paid.amount_paid, 1234)
  await wallet.getByText('Paid: 1,234 sats received.').waitFor()
  await wallet.getByText('6,234 sats', { exact: true }).waitFor()
  await wallet.locator('#history li').filter({ hasText: '+1,234 sats' }).first().waitFor()
})

e2e('send: a pasted invoice of another wallet is paid, and the balance drops by the amount plus the fee shown', async () => {
  if (!chromiumPath) return
  await wallet.getByRole('button', { name: 'Send' }).click()
  const field = wallet.getByLabel('Lightning invoice, LNURL or Lightning address')
  // What is not an invoice is refused with what to do instead, and nothing is paid.
  for (const [pasted, says] of [
    ['frank at home', 'That is not a Lightning invoice, an LNURL or a Lightning address. An invoice starts with lnbc…, an LNURL with lnurl1…, an address looks like name@example.com.'],
    ['lnbc1', 'This looks like a Lightning invoice or LNURL but it is incomplete or damaged: copy the whole of it again.'],
    ['bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.001', 'This is an on-chain Bitcoin address with no Lightning invoice in it, and this page pays over Lightning only. Ask for a Lightning invoice.'],
  ] as const) {
    await field.fill(pasted)
    await wallet.getByRole('button', { name: 'Continue' }).click()
    await wallet.getByRole('alert').filter({ hasText: says }).waitFor()
  }
  const before = await balanceOf('erin')
  const frankBefore = await balanceOf('frank')
  assert.is(before, 6_234)
  await field.fill(`lightning:${(await invoiceFor('frank', 500)).toUpperCase()}`)
  await wallet.getByRole('button', { name: 'Continue' }).click()
  await wallet.getByText('Pay 500 sats, plus the service fee?').waitFor()
  await wallet.getByRole('button', { name: 'Pay 500 sats' }).click()
  const result = await wallet.getByText(/^Paid 500 sats \(fee \d+ sats?\)\.$/).textContent()
  const fee = Number(/fee (\d+) sat/.exec(result!)![1])
  const after = await balanceOf('erin')
  assert.is(after, before - 500 - fee, 'the balance drops by the amount and the fee the page showed')
  assert.is(await balanceOf('frank'), frankBefore + 500)
  assert.is(await balanceShown(wallet), `${after.toLocaleString('en-US')} sats`)
})

e2e("send to a Lightning address and to an LNURL: the amount is chosen within the recipient's range", async () => {
  if (!chromiumPath) return
  const frank = { authorization: `Bearer ${(await ok('/api/operator/users/token', { identifier: 'frank' }, admin())).token}` }
  const { address } = await ok('/api/user/lnurl/address', { name: 'frank' }, frank)
  const lnurl = (await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: frank })).json.lnurl as string
  assert.match(lnurl, /^lnurl1/)
  const field = wallet.getByLabel('Lightning invoice, LNURL or Lightning address')
  for (const [destination, sats, shown] of [[address, 321, address], [lnurl.toUpperCase(), 45, daemon.url.replace('http://', '')]] as const) {
    const before = await balanceOf('erin')
    const frankBefore = await balanceOf('frank')
    await field.fill(destination)
    await wallet.getByRole('button', { name: 'Continue' }).click()
    await wallet.getByText(new RegExp(`^Pay ${shown.replace(/[.]/g, '\\.')}( \\(.+\\))?: from 10 sats to [\\d,]+ sats, plus the service fee\\.$`)).waitFor()
    const amount = wallet.getByLabel('Amount to send (sats)')
    await amount.fill('5')
    await wallet.getByRole('button', { name: 'Pay', exact: true }).click()
    await wallet.getByRole('alert').filter({ hasText: /^Enter a whole number of sats from 10 to [\d,]+\.$/ }).waitFor()
    assert.is(await balanceOf('erin'), before, 'nothing paid below the range')
    await amount.fill(String(sats))
    await wallet.getByRole('button', { name: 'Pay', exact: true }).click()
    const result = await wallet.getByText(new RegExp(`^Paid ${sats} sats \\(fee \\d+ sats?\\)\\.$`)).textContent()
    const fee = Number(/fee (\d+) sat/.exec(result!)![1])
    assert.is(await balanceOf('erin'), before - sats - fee, destination)
    assert.is(await balanceOf('frank'), frankBefore + sats, destination)
  }
})

e2e('connect an app: the NWC string (text and QR code) names the service key, a relay and a secret a real client uses', async () => {
  if (!chromiumPath) return
  await wallet.getByRole('button', { name: 'Connect an app' }).click()
  await wallet.getByLabel('App name').fill('Podcast app')
  await wallet.getByRole('button', { name: 'Create connection' }).click()
  await wallet.getByRole('img', { name: 'QR code of the connection string' }).waitFor()
  const uri = await wallet.getByLabel('The connection string').inputValue()
  assert.match(uri, /^nostr\+walletconnect:\/\/[0-9a-f]{64}\?relay=ws[^&]+&secret=[0-9a-f]{64}/)
  const read = await readQr(wallet, 'QR code of the connection string')
  if (read !== undefined) assert.is(read, uri)
  const parsed = parseConnectionUri(uri)
  connectionSecret = new URL(uri).searchParams.get('secret')!
  assert.ok(parsed.relays.length > 0, 'names a relay')
  // The connection is erin's: listed among her connections by its service key, and a NIP-47 client reads her balance.
  const token = (await ok('/api/operator/users/token', { identifier: 'erin' }, admin())).token
  const listed = await ok('/api/user/nwc/list', {}, { authorization: `Bearer ${token}` })
  assert.ok(listed.connections.some((c: { name: string; service_pubkey: string }) => c.name === 'Podcast app' && c.service_pubkey === parsed.servicePubkey))
  const relay = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  const client = await NwcTestClient.connect(uri, relay)
  closers.push(() => client.close())
  pageConnection = client
  const balance = await client.call('get_balance', {})
  assert.is(balance.balance, (await balanceOf('erin')) * 1000)
})

e2e('at 375 px every control is on the screen, on every tab', async () => {
  if (!chromiumPath) return
  const narrow = await browser.context.newPage()
  watch(narrow)
  await narrow.setViewportSize({ width: 375, height: 800 })
  await narrow.goto(link)
  await narrow.locator('#balance').filter({ hasText: 'sats' }).waitFor()
  for (const tab of ['Receive', 'Send', 'Connect an app']) {
    await narrow.getByRole('button', { name: tab }).click()
    const beyond = await narrow.evaluate<string[]>(`[...document.querySelectorAll('button, input, textarea, img, h1, h2, p')]
      .filter(el => el.offsetParent !== null && el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map(el => el.tagName + ' ' + (el.id || el.textContent.trim().slice(0, 30)))`)
    assert.equal(beyond, [], `${tab}: controls beyond the right edge`)
    assert.ok(await narrow.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), `${tab}: scrolls sideways`)
  }
  await narrow.getByRole('button', { name: 'Receive' }).click()
  await narrow.getByLabel('Amount (sats)').fill('2100')
  await narrow.getByRole('button', { name: 'Create invoice' }).click()
  await narrow.getByText('Waiting for the payment of 2,100 sats…').waitFor()
  // Paid by test mode's switch this time: the page turns paid all the same.
  await ok('/api/node/mock/invoice/paid', { invoice: await narrow.getByLabel('The invoice').inputValue(), amount: 0 }, {})
  await narrow.getByText('Paid: 2,100 sats received.').waitFor()
  // Neither the link's secret (its fragment) nor the secret of the connection made on the page is on it.
  const secrets = [new URL(link).hash.slice(1), connectionSecret].filter(secret => secret !== '')
  await screenshotForDocs(narrow, 'wallet-page.png', { fullPage: true, secrets })
  await narrow.emulateMedia({ colorScheme: 'dark' })
  await screenshotForDocs(narrow, 'wallet-page-dark.png', { fullPage: true, secrets })
  await narrow.close()
})

e2e('dark mode: the page follows prefers-color-scheme', async () => {
  if (!chromiumPath) return
  /** The sum of the red, green and blue of the body's background (0 black, 765 white). */
  const background = () => wallet.evaluate<number>(`getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0)`)
  const text = () => wallet.evaluate<number>(`getComputedStyle(document.body).color.match(/\\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0)`)
  await wallet.emulateMedia({ colorScheme: 'dark' })
  assert.ok((await background()) < 150, 'a dark background')
  assert.ok((await text()) > 600, 'light text')
  await wallet.emulateMedia({ colorScheme: 'light' })
  assert.ok((await background()) > 600, 'a light background')
  assert.ok((await text()) < 150, 'dark text')
})

e2e('revoked on the console, the link is refused on the page with a message; the old wallet view is gone', async () => {
  if (!chromiumPath) return
  await usersPageWith('erin')
  // The refusal read below is the invoice's, not a refresh's that came due first (which hides the wallet at once).
  const resume = await holdRefresh(wallet)
  await consolePage.getByRole('button', { name: 'Revoke the wallet link of erin' }).click()
  await consolePage.getByText('The wallet link of erin is revoked.').waitFor()
  assert.is(asked.at(-1), 'Revoke the wallet link of erin? Its wallet page stops working for whoever holds it.')
  // The app connected on the page ends with the link: its requests are refused, and it leaves erin's list.
  assert.is((await pageConnection!.request('get_balance', {})).error?.code, 'UNAUTHORIZED')
  const token = (await ok('/api/operator/users/token', { identifier: 'erin' }, admin())).token
  const listed = await ok('/api/user/nwc/list', {}, { authorization: `Bearer ${token}` })
  assert.not.ok(listed.connections.some((c: { name: string }) => c.name === 'Podcast app'), 'gone from the list')
  // The page still open refuses at its next call: creating an invoice.
  await wallet.getByRole('button', { name: 'Receive' }).click()
  await wallet.getByLabel('Amount (sats)').fill('10')
  await wallet.getByRole('button', { name: 'Create invoice' }).click()
  await wallet.getByRole('alert').filter({ hasText: 'This wallet link does not open a wallet' }).waitFor()
  await resume()
  await wallet.reload()
  await wallet.getByRole('heading', { name: 'This link does not open a wallet' }).waitFor()
  assert.match((await wallet.locator('#refused-reason').textContent())!, /revoked or replaced by a newer one/)
  assert.is(await wallet.locator('#wallet').isVisible(), false)
  // Opened without the fragment (a link cut short): the page says what is missing.
  await wallet.goto(`${daemon.url}/wallet/`)
  await wallet.getByText('This page opens a wallet from a link that ends in #wl_…').waitFor()
  assert.equal(pageErrors, [])
})

e2e.run()
