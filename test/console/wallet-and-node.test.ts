// The console's wallet page, its wallet pickers, its node page and its confirmations, in Debian's headless Chromium
// against the real daemon (embedded node): a wallet's ids copied to the clipboard, its history paged and showing a
// payment made in the console, its NWC connection revoked; a payroll contract made by picking wallets by name; the
// node's key, a peer, a channel opened and closed, a fresh address and the liquidity; invite links listed from the
// daemon; an app's nprofile copied; and a dismissed confirmation that changes nothing.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Locator, Page } from 'playwright-core'
import { npubEncode } from 'nostr-tools/nip19'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { randomNodePubkey } from '../support/outside-invoice.js'
import { eventually, findChromium, launchBrowser, signInToConsole, type Browser } from '../support/browser.js'
import { screenshotForDocs } from '../support/docs-screenshots.js'

const chromiumPath = findChromium()
const views = suite('the wallet and node pages in Chromium')
let daemon: TestDaemon
let browser: Browser
let page: Page
/** The confirmations the console asked, in order, and how the next ones are answered. */
const asked: string[] = []
let answer: 'accept' | 'dismiss' = 'accept'
const pageErrors: string[] = []
/** The path of every request the page made. */
const requested: string[] = []
const closers: (() => void)[] = []

const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
let appToken: string
const asApp = () => ({ authorization: `Bearer ${appToken}` })

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
const operatorGet = async (pathname: string) => {
  const res = await daemon.request('GET', pathname, { headers: admin() })
  assert.is(res.status, 200, `${pathname}: ${res.text}`)
  return res.json
}
const userOf = async (identifier: string) =>
  (await operatorGet(`/api/operator/users?query=${identifier}`)).users.find((u: { identifier: string }) => u.identifier === identifier)
const userToken = async (identifier: string) => (await daemon.request('POST', '/api/operator/users/token', { body: { identifier }, headers: admin() })).json.token as string
const invoiceOf = async (receiver: string, sats: number, memo = 'views') =>
  (await ok('/api/app/user/add/invoice', { receiver_identifier: receiver, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: sats, memo } }, asApp())).invoice as string

views.before(async () => {
  if (!chromiumPath) return
  daemon = await startDaemon()
  appToken = (await ok('/api/admin/app/add', { name: 'views-shop', allow_user_creation: true }, admin())).auth_token
  for (const identifier of ['alice', 'bob', 'carol']) await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'alice', amount: 20_000 }, asApp())
  browser = await launchBrowser(chromiumPath)
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url })
  page = await browser.context.newPage()
  page.on('dialog', dialog => {
    asked.push(dialog.message())
    void (answer === 'accept' ? dialog.accept() : dialog.dismiss())
  })
  page.setDefaultTimeout(10_000)
  page.on('request', request => requested.push(new URL(request.url()).pathname))
  await signInToConsole(page, daemon, pageErrors)
})
views.after(async () => {
  for (const close of closers) close()
  await browser?.close()
  await daemon?.stop()
})

async function open(name: string): Promise<void> {
  await page.goto(`${daemon.url}/console/#/${name}`)
  await page.locator('h1').first().waitFor()
}
const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()')

/**
 * Clicks a button that asks first and dismisses the question; resolves once the click's handler has run to its end
 * in the page, so that a call it made regardless would have been sent by then. Returns the question.
 */
async function dismissed(button: Locator): Promise<string> {
  const before = asked.length
  answer = 'dismiss'
  try {
    await button.click()
    await eventually(async () => asked.length > before, 'the question')
    await page.evaluate('0') // the page's thread is past the handler
  } finally {
    answer = 'accept'
  }
  return asked.at(-1)!
}

/** Types part of a name into a wallet picker and picks the option that names `identifier`. */
async function pick(label: string, typed: string, identifier: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).fill(typed)
  await page.getByRole('listbox', { name: 'Matching wallets' }).getByRole('option').filter({ hasText: new RegExp(`^${identifier} ·`) }).click()
}

views('a payment made in the console with two pickers shows in the payer\'s own page, reached from the list of all wallets', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the pages were not tested')
  await open('users')
  await pick('From user', 'ali', 'alice')
  await pick('To user', 'bo', 'bob')
  assert.equal([await page.getByLabel('From user', { exact: true }).inputValue(), await page.getByLabel('To user', { exact: true }).inputValue()], ['alice', 'bob'])
  await page.getByLabel('Amount (sats)').fill('1234')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()
  await page.getByText(/Paid 1,234 sats from alice to bob/).waitFor()

  const alice = await userOf('alice')
  await page.getByRole('region', { name: 'All wallets, most recently active first' }).getByRole('link', { name: 'alice', exact: true }).click()
  await page.getByRole('heading', { name: 'Wallet alice' }).waitFor()
  assert.is(await page.getByTestId('wallet-user-id').textContent(), alice.user_id)
  await eventually(async () => (await page.getByTestId('wallet-balance').textContent()) === `${alice.balance_sats.toLocaleString('en')} sats`, 'the balance')
  const history = page.getByRole('region', { name: 'Invoices and payments of alice, newest first' })
  await history.getByRole('row').filter({ hasText: '1,234 sats' }).filter({ hasText: 'succeeded' }).waitFor()
  assert.match((await history.getByRole('row').nth(1).textContent()) ?? '', /out/)
})

views("a wallet's ids, its Nostr key among them, are each copied by their button", async () => {
  if (!chromiumPath) return
  // A Nostr user of the default app: its wallet has a key.
  const profile = appProfile(daemon.dataDir)
  const nostrUser = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  closers.push(() => nostrUser.close())
  await nostrUser.call('GetUserInfo')
  const [wallet] = (await operatorGet(`/api/operator/users?query=${nostrUser.pubkey}`)).users
  await open(`wallet?id=${wallet.user_id}`)
  await page.getByTestId('wallet-user-id').waitFor()
  const copies: [string, string][] = [
    ['Copy user id', wallet.user_id],
    [`Copy app user id in ${wallet.app_name}`, wallet.identifier],
    [`Copy app id of ${wallet.app_name}`, wallet.app_id],
    ['Copy nostr key (npub)', npubEncode(nostrUser.pubkey)],
    ['Copy nostr key (hex)', nostrUser.pubkey],
  ]
  for (const [button, value] of copies) {
    await page.getByRole('button', { name: button, exact: true }).click()
    await page.getByRole('button', { name: button, exact: true }).filter({ hasText: 'Copied' }).waitFor()
    assert.is(await clipboard(), value, button)
  }
})

views("a wallet's history is paged twenty at a time, newest first", async () => {
  if (!chromiumPath) return
  for (let i = 1; i <= 23; i++) await invoiceOf('carol', i, `invoice ${i}`)
  await open('users')
  await page.getByLabel('Identifier, user id or npub').fill('carol')
  await page.getByRole('button', { name: 'Search' }).click()
  await page.getByRole('region', { name: 'Wallets', exact: true }).getByRole('link', { name: 'carol', exact: true }).click()
  // The history and the wallet load apart: until the wallet is in, the table's caption names no wallet, so the
  // heading is waited for as well as the range.
  await page.getByRole('heading', { name: 'Wallet carol' }).waitFor()
  const history = page.getByRole('region', { name: 'Invoices and payments of carol, newest first' })
  await page.getByTestId('history-range').filter({ hasText: '1–20' }).waitFor()
  assert.is(await history.locator('tbody tr').count(), 20)
  assert.match((await history.locator('tbody tr').first().textContent()) ?? '', /invoice 23/)
  assert.ok(await page.getByRole('button', { name: 'Newer' }).isDisabled())
  await page.getByRole('button', { name: 'Older' }).click()
  await page.getByTestId('history-range').filter({ hasText: '21–23' }).waitFor()
  assert.equal(await history.locator('tbody tr td[data-label=Memo]').allTextContents(), ['invoice 3', 'invoice 2', 'invoice 1'])
  assert.ok(await page.getByRole('button', { name: 'Older' }).isDisabled())
})

views("a wallet's NWC connection: a dismissed Revoke keeps it working, an accepted one ends it", async () => {
  if (!chromiumPath) return
  const token = await userToken('bob')
  const created = await daemon.request('POST', '/api/user/nwc/create', { body: { name: 'Till' }, headers: { authorization: `Bearer ${token}` } })
  assert.is(created.status, 200, created.text)
  const connections = async () => (await daemon.request('POST', '/api/user/nwc/list', { headers: { authorization: `Bearer ${token}` } })).json.connections as { name: string; revoked: boolean }[]
  const bob = await userOf('bob')
  await open(`wallet?id=${bob.user_id}`)
  const table = page.getByRole('region', { name: 'NWC connections of bob' })
  const revoke = table.getByRole('button', { name: 'Revoke Till' })
  // The wallet's own page as docs/console.md shows it: its balance, ids, the payment from alice and the connection.
  await revoke.waitFor()
  await page.getByTestId('wallet-balance').filter({ hasText: `${bob.balance_sats.toLocaleString('en')} sats` }).waitFor()
  await page.getByRole('region', { name: 'Invoices and payments of bob, newest first' }).getByRole('row').filter({ hasText: '1,234 sats' }).waitFor()
  await screenshotForDocs(page, 'console-wallet.png', { viewport: { width: 1200, height: 800 }, fullPage: true, secrets: [daemon.adminToken, token] })
  assert.is(await dismissed(revoke), 'Revoke Till of bob? The app holding it can no longer use this wallet.')
  assert.not.ok(requested.includes('/api/user/nwc/revoke'), 'nothing sent')
  assert.equal((await connections()).map(c => [c.name, c.revoked]), [['Till', false]], 'dismissed: still usable')
  assert.ok(await revoke.isVisible())
  await revoke.click()
  await page.getByText('Till revoked.').waitFor()
  await table.getByRole('cell', { name: 'revoked', exact: true }).waitFor()
  assert.equal((await connections()).map(c => [c.name, c.revoked]), [['Till', true]])
})

views('payroll: the employee and the paying wallet are picked by name, and the contract names their wallet ids', async () => {
  if (!chromiumPath) return
  await open('payroll')
  await page.getByLabel('Contract name').fill('Carol weekly')
  await pick('Employee wallet', 'car', 'carol')
  await pick('Paying wallet', 'ali', 'alice')
  const [carol, alice] = [await userOf('carol'), await userOf('alice')]
  assert.is(await page.getByLabel('Employee wallet', { exact: true }).inputValue(), carol.user_id)
  assert.is(await page.getByLabel('Paying wallet', { exact: true }).inputValue(), alice.user_id)
  await page.getByLabel('Amount per period').fill('50')
  await page.getByLabel('Periods').fill('2')
  await page.getByRole('button', { name: 'Create contract' }).click()
  await page.getByText('Contract created.').waitFor()
  const contracts = await operatorGet('/payroll/api/v1/contracts')
  const made = contracts.find((c: { name: string }) => c.name === 'Carol weekly')
  assert.equal([made.employee_wallet, made.source_wallet], [carol.user_id, alice.user_id])
  // A dismissed Pay now pays nothing.
  const payNow = page.getByRole('row').filter({ hasText: 'Carol weekly' }).getByRole('button', { name: 'Pay now' })
  assert.is(await dismissed(payNow), 'Pay Carol weekly now? Its payees are paid from the source wallet.')
  assert.not.ok(requested.some(path => path.endsWith('/pay-now')), 'nothing sent')
  assert.equal((await operatorGet('/payroll/api/v1/payouts')).filter((p: { contract_name: string }) => p.contract_name === 'Carol weekly'), [])
  assert.is((await userOf('carol')).balance_sats, carol.balance_sats)
})

views("the node page on the embedded node: its key, a peer, a channel opened and closed, a fresh address, liquidity", async () => {
  if (!chromiumPath) return
  const node = await operatorGet('/api/operator/node')
  await open('node')
  await page.getByTestId('embedded-note').waitFor()
  assert.is(await page.getByTestId('node-pubkey').textContent(), node.pubkey)
  await page.getByTestId('no-uri').waitFor()
  await page.getByRole('button', { name: "Copy the node's public key" }).click()
  await eventually(async () => (await clipboard()) === node.pubkey, 'the key copied')
  await page.getByTestId('outbound').filter({ hasText: `${node.outbound_sats.toLocaleString('en')} sats` }).waitFor()

  const peer = randomNodePubkey()
  await page.getByLabel('Peer (pubkey@host:port)').fill(`${peer}@127.0.0.1`)
  await page.getByRole('button', { name: 'Add peer' }).click()
  await page.getByText(/^Connected to .* at 127\.0\.0\.1:9735\.$/).waitFor()
  await page.getByRole('region', { name: 'Peers' }).getByRole('row').filter({ hasText: '127.0.0.1:9735' }).waitFor()

  await page.getByLabel('To peer').selectOption(peer)
  await page.getByLabel('Channel amount (sats)').fill('150000')
  await page.getByRole('button', { name: 'Open channel' }).click()
  await page.getByText(/^A channel of 150,000 sats to .* is opening\.$/).waitFor()
  assert.is(asked.at(-1), `Open a channel of 150,000 sats to ${peer}? The amount leaves the node's on-chain wallet.`)
  await page.getByTestId('outbound').filter({ hasText: `${(node.outbound_sats + 150_000).toLocaleString('en')} sats` }).waitFor()
  const channels = page.getByRole('region', { name: 'Channels' })
  const row = channels.getByRole('row').filter({ hasText: '150,000 sats' })
  await row.waitFor()
  const [channel] = (await operatorGet('/api/admin/channels')).open_channels as { channel_point: string }[]

  const question = await dismissed(row.getByRole('button', { name: /^Close channel / }))
  assert.ok(question.startsWith(`Close the channel ${channel!.channel_point} (150,000 sats) with ${peer.slice(0, 8)}…${peer.slice(-8)} cooperatively?`), question)
  assert.match(question, /returns to the node's on-chain wallet/)
  // No alias for a peer the embedded node only recorded: its key shortened, the whole key copyable.
  await row.getByTestId('peer-key').filter({ hasText: `${peer.slice(0, 8)}…${peer.slice(-8)}` }).waitFor()
  await row.getByRole('button', { name: /^Copy the key of / }).click()
  await eventually(async () => (await clipboard()) === peer, 'the peer key copied')
  const force = await dismissed(row.getByRole('button', { name: /^Force close channel / }))
  assert.ok(force.startsWith(`Force close the channel ${channel!.channel_point} with `), force)
  assert.match(force, /stays locked for the CSV delay the peer set for the channel .*on-chain fees.*The embedded node only simulates this/)
  assert.not.ok(requested.includes('/api/admin/channel/close'), 'nothing sent')
  assert.is((await operatorGet('/api/admin/channels')).open_channels.length, 1, 'dismissed: the channel stays open')
  await row.getByRole('button', { name: /^Close channel / }).click()
  await page.getByText(/^Channel .* closing in transaction /).waitFor()
  await channels.getByText('No channel.').waitFor()
  assert.equal((await operatorGet('/api/admin/channels')).open_channels, [])

  await page.getByRole('button', { name: 'New on-chain address' }).click()
  const address = (await page.getByTestId('node-address').locator('.mono').textContent())!
  assert.match(address, /^bcrt1q/)
  await page.getByRole('button', { name: 'Copy the on-chain address' }).click()
  await eventually(async () => (await clipboard()) === address, 'the address copied')
})

views('invite links are listed from the daemon, one made elsewhere too, each with a copy button', async () => {
  if (!chromiumPath) return
  const made = (await ok('/api/admin/app/invite/create', {}, admin())).invitation_link as string
  await open('links')
  const invites = page.getByRole('region', { name: 'Invite links' })
  await invites.getByText(made).waitFor()
  await invites.getByRole('row').filter({ hasText: made }).getByRole('button', { name: /^Copy invite/ }).click()
  await eventually(async () => (await clipboard()) === made, 'the invite copied')
  assert.equal(pageErrors, [], 'no script error and nothing the Content-Security-Policy refused')
})

views("an app's nprofile is copied by its button: the daemon's own for its default app", async () => {
  if (!chromiumPath) return
  const own = fs.readFileSync(path.join(daemon.dataDir, 'app.nprofile'), 'utf8').trim()
  const defaultApp = (await operatorGet('/api/operator/apps')).apps.find((app: { npub: string }) => app.npub === appProfile(daemon.dataDir).pubkey)
  await open('apps')
  await page.getByRole('button', { name: `Copy the nprofile of ${defaultApp.name}`, exact: true }).click()
  await eventually(async () => (await clipboard()) === own, 'the nprofile copied')
})

views('a dismissed token rotation keeps the old token working', async () => {
  if (!chromiumPath) return
  await open('apps')
  const question = await dismissed(page.getByRole('button', { name: 'Rotate the token of views-shop' }))
  assert.ok(question.startsWith('Rotate the token of views-shop?'), question)
  assert.not.ok(requested.includes('/api/operator/apps/token'), 'nothing sent')
  assert.is((await daemon.request('POST', '/api/app/get', { headers: asApp() })).json.name, 'views-shop', 'the old token still works')
})

views.run()
