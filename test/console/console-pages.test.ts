// The console's pages one by one in Debian's headless Chromium against the real daemon, for what the end-to-end
// flow (console.test.ts) passes by: the audit button, wallets found by npub, a ban, a wallet's history, payments
// searched by status and date with their fees, an NWC connection spending against its budget through a real NIP-47
// client, LNURL-pay and a Lightning address, the balance and latency charts, an item sold out, the live orders
// board from new to paid to printed, a payroll run and its CSV, and a model made the default.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { npubEncode } from 'nostr-tools/nip19'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { eventually, findChromium, launchBrowser, signInToConsole, type Browser } from '../support/browser.js'

const chromiumPath = findChromium()
const pages = suite('the console pages in Chromium')
let daemon: TestDaemon
let browser: Browser
let page: Page
/** The confirmations the console asked, in order. */
const asked: string[] = []
let dir: string
const pageErrors: string[] = []
const closers: (() => void)[] = []

const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
let appToken: string
const asApp = () => ({ authorization: `Bearer ${appToken}` })

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
const userToken = async (identifier: string) => (await daemon.request('POST', '/api/operator/users/token', { body: { identifier }, headers: admin() })).json.token as string
const invoiceOf = async (receiver: string, sats: number) =>
  (await ok('/api/app/user/add/invoice', { receiver_identifier: receiver, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: sats, memo: 'pages' } }, asApp())).invoice as string

pages.before(async () => {
  if (!chromiumPath) return
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-console-pages-'))
  // Balances sampled every second, so the balance chart has more than the start's point.
  // LNURL needs the address wallets reach the daemon at; nothing fetches it here.
  daemon = await startDaemon({ config: '[metrics]\nsample_seconds = 1\n[http]\npublic_url = "https://pay.example.com"\n' })
  appToken = (await ok('/api/admin/app/add', { name: 'pages-shop', allow_user_creation: true }, admin())).auth_token
  for (const identifier of ['alice', 'bob', 'mallory']) await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'alice', amount: 10_000 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'mallory', amount: 700 }, asApp())
  await ok('/api/app/invoice/pay', { user_identifier: 'alice', invoice: await invoiceOf('bob', 1000), amount: 0 }, asApp())
  browser = await launchBrowser(chromiumPath)
  page = await browser.context.newPage()
  // Buttons that move money or destroy something ask first: every question is accepted here and kept, to be checked.
  page.on('dialog', dialog => {
    asked.push(dialog.message())
    void dialog.accept()
  })
  page.setDefaultTimeout(10_000)
  await signInToConsole(page, daemon, pageErrors)
})
pages.after(async () => {
  for (const close of closers) close()
  await browser?.close()
  await daemon?.stop()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

async function open(name: string): Promise<void> {
  await page.goto(`${daemon.url}/console/#/${name}`)
  await page.locator('h1').first().waitFor()
}

pages('overview: the node and the books; Run the audit runs it again and shows the new time', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the pages were not tested')
  await open('overview')
  const facts = () => page.locator('dl').first().textContent().then(text => text ?? '')
  // Each fact comes from its own request (about, info, channels, books): every one shows "…" until it loads.
  const expected = [/^Backendembedded/, /Networkregtest/, /Aliasrelaypay/, /Node linkconnected/, /Syncedchain ✓ · graph ✓/,
    /Channels\d+ active of \d+/, /On-chain[\d,]+ sats/, /In channels[\d,]+ sats/]
  await eventually(async () => !(await facts()).includes('…'), 'the node facts')
  for (const fact of expected) assert.match(await facts(), fact)
  await eventually(async () => (await page.getByTestId('users-total').textContent()) === '10,700 sats', "the users' total")
  const before = (await page.getByTestId('audit-result').textContent()) ?? ''
  assert.match(before, /^clean at /)
  await page.waitForTimeout(1100) // a new second, so the new audit's time differs
  await page.getByRole('button', { name: 'Run the audit' }).click()
  await page.getByText('The books are clean.').waitFor()
  await eventually(async () => ((await page.getByTestId('audit-result').textContent()) ?? '') !== before, 'the new audit time')
  assert.match((await page.getByTestId('audit-result').textContent()) ?? '', /^clean at .* \(\d+ transactions\)$/)
})

pages('users: found by npub; a ban seizes the balance; History opens the wallet\'s payments', async () => {
  if (!chromiumPath) return
  // A Nostr user of the default app: its app user carries its pubkey.
  const profile = appProfile(daemon.dataDir)
  const nostrUser = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  closers.push(() => nostrUser.close())
  await nostrUser.call('GetUserInfo')
  const npub = npubEncode(nostrUser.pubkey)
  const found = (await daemon.request('GET', `/api/operator/users?query=${nostrUser.pubkey}`, { headers: admin() })).json.users
  assert.is(found.length, 1)
  await open('users')
  await page.getByLabel('Identifier, user id or npub').fill(npub)
  await page.getByRole('button', { name: 'Search' }).click()
  const wallets = page.getByRole('region', { name: 'Wallets', exact: true })
  await eventually(async () => (await wallets.locator('tbody tr').count()) === 1 && ((await wallets.textContent()) ?? '').includes(found[0].identifier), 'the wallet found by npub')

  await page.getByLabel('Identifier, user id or npub').fill('mallory')
  await page.getByRole('button', { name: 'Search' }).click()
  await page.getByRole('button', { name: 'Ban mallory' }).click()
  await page.getByText('Banned; it held 700 sats.').waitFor()
  await wallets.getByRole('row').filter({ hasText: 'mallory' }).getByText('banned').waitFor()
  const refused = await daemon.request('POST', '/api/app/invoice/pay', { body: { user_identifier: 'mallory', invoice: await invoiceOf('bob', 10), amount: 0 }, headers: asApp() })
  assert.match(refused.text, /ban|lock/i, 'a banned wallet cannot pay')

  await page.getByLabel('Identifier, user id or npub').fill('bob')
  await page.getByRole('button', { name: 'Search' }).click()
  await wallets.getByRole('row').filter({ hasText: 'bob' }).getByRole('link', { name: 'History' }).click()
  await page.getByRole('heading', { name: 'Invoices & payments' }).waitFor()
  assert.is(await page.getByLabel('Hash, user id or identifier').inputValue(), 'bob')
  await page.getByRole('row').filter({ hasText: '1,000 sats' }).filter({ hasText: 'paid' }).first().waitFor()
})

pages('payments: searched by status and date; the details show the service and routing fees', async () => {
  if (!chromiumPath) return
  await open('payments')
  const table = page.getByRole('region', { name: 'Invoices and payments, newest first' })
  const search = async (query: string, status: string, since = '', until = '') => {
    await page.getByLabel('Hash, user id or identifier').fill(query)
    await page.getByLabel('Status').selectOption(status)
    await page.getByLabel('From date').fill(since)
    await page.getByLabel('To date').fill(until)
    await page.getByRole('button', { name: 'Search' }).click()
  }
  const today = await page.evaluate<string>("new Date().toLocaleDateString('en-CA')")
  const tomorrow = await page.evaluate<string>("new Date(Date.now() + 86400000).toLocaleDateString('en-CA')")
  await search('alice', 'paid')
  await table.getByText('No invoice or payment matches.').waitFor()
  await search('alice', 'succeeded', today, today)
  const sent = table.getByRole('row').filter({ hasText: '1,000 sats' })
  await sent.first().waitFor()
  assert.match((await sent.first().textContent()) ?? '', /out.*10 sats \+ 0 sats routing.*succeeded/)
  await search('alice', 'succeeded', tomorrow)
  await table.getByText('No invoice or payment matches.').waitFor()
  await search('alice', '', today)
  await sent.first().getByRole('button').click()
  const details = (await page.locator('dl.details').textContent()) ?? ''
  assert.match(details, /Service fee10 sats/)
  assert.match(details, /Routing fee0 sats/)
  assert.match(details, /Statussucceeded/)
  assert.match(details, /Invoicelnbc/)
  // The hash searched for finds both halves of the payment between wallets.
  const hash = (await page.locator('dl.details dd.mono').first().textContent())!
  await search(hash.slice(0, 16), '')
  await eventually(async () => (await table.locator('tbody tr').count()) === 2, 'both sides of the payment')
})

pages('NWC: a real client spends against the budget, the list shows it, over budget is refused, revoke ends it', async () => {
  if (!chromiumPath) return
  await open('nwc')
  await page.getByLabel('User identifier').fill('alice')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByLabel('Connection name').fill('Tip jar')
  await page.getByLabel('Budget (sats, 0 for none)').fill('2000')
  await page.getByLabel('Budget period').selectOption('WEEK')
  await page.getByRole('button', { name: 'Create connection' }).click()
  const uri = await page.getByTestId('nwc-created').locator('textarea').inputValue()
  const relay = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  const client = await NwcTestClient.connect(uri, relay)
  closers.push(() => client.close())
  const paid = await client.call('pay_invoice', { invoice: await invoiceOf('bob', 300) })
  const spent = 300 + paid.fees_paid / 1000
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByRole('cell', { name: `${spent} sats of 2,000 sats per week` }).waitFor()
  const refused = await client.request('pay_invoice', { invoice: await invoiceOf('bob', 1800) })
  assert.is(refused.error?.code, 'QUOTA_EXCEEDED')
  await page.getByRole('button', { name: 'Revoke Tip jar' }).click()
  await page.getByText('Tip jar revoked.').waitFor()
  assert.is((await client.request('get_balance', {})).error?.code, 'UNAUTHORIZED', 'a revoked connection gets no balance')
})

pages('LNURL: the pay link as a QR code a reader decodes, and a Lightning address that resolves', async () => {
  if (!chromiumPath) return
  await open('links')
  await page.getByLabel('User identifier').fill('bob')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByRole('button', { name: 'LNURL-pay link' }).click()
  const qr = page.getByRole('img', { name: 'QR code of the LNURL-pay link' })
  await qr.waitFor()
  const lnurl = (await page.locator('.secret p.mono').textContent())!
  assert.match(lnurl, /^lnurl1[02-9ac-hj-np-z]+$/)
  if (fs.existsSync('/usr/bin/zbarimg')) {
    const shot = path.join(dir, 'lnurl-qr.png')
    await qr.screenshot({ path: shot })
    assert.is(spawnSync('/usr/bin/zbarimg', ['-q', '--raw', shot], { encoding: 'utf8' }).stdout.trim(), lnurl.toUpperCase())
  }
  await page.getByLabel('Lightning address name').fill('bobs-tips')
  await page.getByRole('button', { name: 'Set address' }).click()
  await page.getByText('Lightning address bobs-tips@pay.example.com set.').waitFor()
  const resolved = await daemon.request('GET', '/.well-known/lnurlp/bobs-tips')
  assert.is(resolved.status, 200, resolved.text)
  assert.is(resolved.json.tag, 'payRequest')
  // A name the daemon refuses gets its reason on the page.
  await page.getByLabel('Lightning address name').fill('x'.repeat(65))
  await page.getByRole('button', { name: 'Set address' }).click()
  assert.is(await page.evaluate<boolean>("document.querySelector('input[name=ln-address]').validity.patternMismatch"), true, 'the form refuses a 65-character name')
})

pages('charts: balances over time and operation latency come from the metrics store', async () => {
  if (!chromiumPath) return
  await open('charts')
  const points = (id: string) => page.getByTestId(id).getAttribute('data-points').then(Number)
  await eventually(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click()
    return (await points('users-balance-chart')) >= 2 && (await points('latency-chart')) >= 1 && (await points('payments-chart')) >= 2
  }, 'the balance, latency and payment series')
  for (const id of ['payments-chart', 'users-balance-chart', 'node-assets-chart', 'failures-chart', 'latency-chart']) {
    // uPlot draws in an effect that Preact runs after the render that set data-points: wait for each canvas.
    await page.locator(`[data-testid=${id}] canvas`).first().waitFor({ state: 'attached' })
  }
})

pages('restaurant: a nested category, hours, sold out on the customer page; the board moves an order from new to paid to printed', async () => {
  if (!chromiumPath) return
  await open('restaurant')
  await page.getByLabel("Owner's user identifier").fill('bob')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByLabel('New restaurant name').fill('Board Cafe')
  // The slug's pattern holds in current Chromium, which compiles `pattern` with the v flag (an unescaped `-` in a
  // class is a syntax error there, and the browser then drops the pattern).
  const slug = page.getByLabel('Address name (slug)')
  const mismatch = () => slug.evaluate(el => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch)
  await slug.fill('Board Cafe')
  assert.ok(await mismatch(), 'an address name with a space and capitals does not match')
  await slug.fill('board-cafe')
  assert.not.ok(await mismatch())
  await page.getByRole('button', { name: 'Create restaurant' }).click()
  await page.getByText('Board Cafe created.').waitFor()
  await page.getByLabel('Category name').fill('Drinks')
  await page.getByRole('button', { name: 'Add category' }).click()
  await page.getByText('Category added.').waitFor()
  for (const [name, price] of [['Tea', '150'], ['Juice', '400']]) {
    await page.getByLabel('Item name').fill(name!)
    await page.getByLabel('Price (sat)', { exact: true }).fill(price!)
    await page.getByRole('button', { name: 'Add item' }).click()
    await page.getByLabel(`Name of ${name}`).waitFor()
  }
  // A category inside another, and hours for an item (all week, all day, so it stays orderable).
  await page.getByLabel('Category name').fill('Hot')
  await page.getByLabel('Inside').selectOption({ label: 'Drinks' })
  await page.getByRole('button', { name: 'Add category' }).click()
  await page.getByText('Category added.').waitFor()
  const teaItem = page.locator('li.menu-item').filter({ has: page.getByLabel('Name of Tea') })
  await teaItem.getByRole('button', { name: 'Options & hours' }).click()
  await teaItem.getByLabel('From').fill('00:00')
  await teaItem.getByLabel('Until').fill('00:00')
  await teaItem.getByRole('button', { name: 'Add hours' }).click()
  await teaItem.getByText('Available mon tue wed thu fri sat sun 00:00–00:00').waitFor()
  // Hours, an option group and an option can be removed again, each after a question.
  await teaItem.getByLabel('Days (mon…sun)').fill('mon')
  await teaItem.getByLabel('From').fill('09:00')
  await teaItem.getByLabel('Until').fill('10:00')
  await teaItem.getByRole('button', { name: 'Add hours' }).click()
  await teaItem.getByText('Available mon 09:00–10:00').waitFor()
  for (const group of ['Size', 'Milk']) {
    await teaItem.getByLabel('New option group of Tea').fill(group)
    await teaItem.getByRole('button', { name: 'Add group' }).click()
    await teaItem.getByText(new RegExp(`^${group}:`)).waitFor()
  }
  // Milk gets Oat (kept, ordered below) and Soy (removed).
  await teaItem.getByLabel('Group', { exact: true }).selectOption({ label: 'Milk' })
  for (const option of ['Oat', 'Soy']) {
    await teaItem.getByLabel('New option of Tea').fill(option)
    await teaItem.getByRole('button', { name: 'Add option' }).click()
    await teaItem.getByRole('button', { name: `Remove option ${option} of Tea` }).waitFor()
  }
  await teaItem.getByRole('button', { name: 'Remove option Soy of Tea' }).click()
  await teaItem.getByText('Option removed.').waitFor()
  await teaItem.getByRole('button', { name: 'Remove group Size of Tea' }).click()
  await teaItem.getByText('Option group removed.').waitFor()
  await teaItem.getByRole('button', { name: 'Remove hours mon 09:00–10:00 of Tea' }).click()
  await teaItem.getByText('Hours removed.').waitFor()
  assert.is(await teaItem.getByText('Available mon 09:00–10:00').count(), 0)
  assert.is(await teaItem.getByText(/^Size:/).count(), 0)
  assert.is(await teaItem.getByRole('button', { name: 'Remove option Soy of Tea' }).count(), 0)
  assert.ok(['Remove the option Soy?', 'Remove the group Size and its options?', 'Remove the hours 09:00–10:00?'].every(q => asked.includes(q)), asked.join(' | '))
  const juice = page.locator('li.menu-item').filter({ has: page.getByLabel('Name of Juice') })
  await juice.getByLabel('Sold out').check()
  await juice.getByRole('button', { name: 'Save' }).click()
  await page.getByText('Juice saved.').waitFor()
  const menu = (await daemon.request('GET', '/restaurant/r/board-cafe')).text
  // Each item's block runs from its name to its Add button or the reason it cannot be added.
  const itemEnd = (name: string) => new RegExp(`>${name}</strong>(?:(?!</strong>)[\\s\\S])*?(<button[^>]*data-add|<span class="unavailable">[^<]*)`).exec(menu)?.[1]
  assert.is(itemEnd('Juice'), '<span class="unavailable">Sold out')
  assert.is(itemEnd('Tea'), '<button type="button" class="add" data-add')
  assert.match(menu, /<h2>Drinks<\/h2>[\s\S]*<h3>Hot<\/h3>/, 'Hot is nested inside Drinks')

  // A guest orders two teas with oat milk, a note on the line and one for the kitchen, at table 4.
  const data = JSON.parse(/<script type="application\/json" id="menu-data">([\s\S]*?)<\/script>/.exec(menu)![1]!)
  const teaData = data.items.find((item: { name: string }) => item.name === 'Tea')
  const tea = teaData.id
  const oat = teaData.modifier_groups.find((g: { name: string }) => g.name === 'Milk').modifiers.find((m: { name: string }) => m.name === 'Oat').id
  const placed = await daemon.request('POST', '/restaurant/api/v1/orders', {
    body: { restaurant_id: data.restaurant.id, table: '4', customer_note: 'by the window', items: [{ item_id: tea, quantity: 2, modifier_ids: [oat], note: 'no sugar' }] },
  })
  assert.is(placed.status, 201, placed.text)
  // One order number everywhere: the order's `number`, its six first letters and digits.
  const number = (placed.json.order.number as string).slice(1)
  assert.is(number, placed.json.order.id.replace(/[-_]/g, '').slice(0, 6).toUpperCase())
  const column = (name: string) => page.getByRole('region', { name: `${name} orders` })
  await column('New').getByText(`#${number}`).waitFor()
  const paid = await daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: placed.json.invoice.payment_request, amount: 0 } })
  assert.is(paid.status, 200, paid.text)
  await column('Paid').getByText(`#${number}`).waitFor()
  await column('Paid').getByText('ticket waiting').waitFor()
  // The card says what the printed ticket says: table, each line's options and note, the order's note.
  const card = column('Paid').locator('article.order').filter({ hasText: `#${number}` })
  assert.match((await card.textContent()) ?? '', /table 4[\s\S]*2 × Tea[\s\S]*\+ Oat[\s\S]*note: no sugar[\s\S]*Note: by the window/)
  const tickets = page.getByRole('region', { name: 'Kitchen tickets' })
  const ticket = (await tickets.getByRole('row').filter({ hasText: `#${number}` }).textContent()) ?? ''
  assert.match(ticket, /pending[\s\S]*Tea/)
  assert.match(ticket, new RegExp(`Order #${number}[\\s\\S]*Table 4[\\s\\S]*\\+ Oat[\\s\\S]*note: no sugar[\\s\\S]*Note: by the window`))
  await column('Paid').getByRole('button', { name: `Mark the ticket of #${number} printed` }).click()
  await column('Printed').getByText(`#${number}`).waitFor()
  await column('Printed').getByText('ticket printed').waitFor()
  assert.is(await column('Paid').getByText(`#${number}`).count(), 0)
  await tickets.getByRole('row').filter({ hasText: `#${number}` }).getByRole('cell', { name: 'printed', exact: true }).waitFor()
  await column('Printed').getByRole('button', { name: 'Mark accepted' }).click()
  await column('Printed').getByText('· accepted').waitFor()
})

pages('payroll: Pay now makes a run, listed and in the CSV export', async () => {
  if (!chromiumPath) return
  const users = (await daemon.request('GET', '/api/operator/users?query=', { headers: admin() })).json.users
  const id = (identifier: string) => users.find((u: { identifier: string }) => u.identifier === identifier).user_id
  await open('payroll')
  await page.getByLabel('Contract name').fill('Bob monthly')
  await page.getByLabel('Employee wallet').fill(id('bob'))
  await page.getByLabel('Paying wallet').fill(id('alice'))
  await page.getByLabel('Amount per period').fill('250')
  await page.getByLabel('Periods').fill('3')
  const tomorrow = await page.evaluate<string>('new Date(Date.now() + 86400000).toISOString().slice(0, 10)')
  await page.getByLabel('First payday').fill(tomorrow)
  await page.getByRole('button', { name: 'Create contract' }).click()
  await page.getByText('Contract created.').waitFor()
  const contract = page.getByRole('row').filter({ hasText: 'Bob monthly' })
  await contract.getByRole('button', { name: 'Pay now' }).click()
  await page.getByText('Paid.', { exact: true }).waitFor()
  assert.is(asked.at(-1), 'Pay Bob monthly now? Its payees are paid from the source wallet.')
  await contract.getByText('1 of 3').waitFor()
  const run = page.getByRole('region', { name: 'Payouts' }).getByRole('row').filter({ hasText: 'Bob monthly' })
  await run.getByText('paid', { exact: true }).waitFor()
  assert.match((await run.textContent()) ?? '', /250 sat/)
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  const file = await (await download).path()
  const csv = fs.readFileSync(file, 'utf8')
  assert.match(csv.split('\r\n')[1] ?? '', /Bob monthly/)
  assert.match(csv, /,paid,/)
})

pages('models: another model made the default; a download is offered exactly when the local engine is installed', async () => {
  if (!chromiumPath) return
  // The optional engine is installed where .ci/run installs it, and missing on a plain npm install: the page follows.
  const { local_engine_installed: installed } = (await daemon.request('GET', '/transcription/api/v1/models', { headers: admin() })).json
  await open('models')
  const models = page.getByRole('region', { name: 'Models' })
  const download = page.getByRole('button', { name: 'Download tiny', exact: true })
  await download.waitFor()
  if (installed) {
    assert.ok(await download.isEnabled(), 'a download is offered with the engine')
    assert.is(await page.getByText('The local transcription engine is not installed').count(), 0)
  } else {
    await page.getByText('The local transcription engine is not installed').waitFor()
    assert.ok(await download.isDisabled(), 'no download without the engine')
  }
  await models.getByRole('row').filter({ hasText: 'Base' }).first().getByText('default', { exact: true }).waitFor()
  await page.getByRole('button', { name: 'Make tiny the default' }).click()
  await page.getByText('tiny is the default now.').waitFor()
  await models.getByRole('row').filter({ hasText: 'Tiny' }).first().getByText('default', { exact: true }).waitFor()
  await page.getByRole('button', { name: 'Make base the default' }).waitFor()
  const listed = await daemon.request('GET', '/transcription/api/v1/models', { headers: admin() })
  assert.is(listed.json.default_model, 'tiny')
  assert.equal(pageErrors, [], 'no script error and nothing the Content-Security-Policy refused')
})

pages('overview without test mode: no mock banner, and a configured relay that does not answer is shown NOT connected', async () => {
  if (!chromiumPath) return
  // Port 1 on loopback: nothing listens there, so the link never comes up.
  const offline = await startDaemon({ config: '[nostr]\nrelays = ["ws://127.0.0.1:1"]\n', mock: false })
  try {
    const other = await browser.context.newPage()
    await other.goto(`${offline.url}/console/`)
    await other.getByLabel('Admin token').fill(offline.adminToken)
    await other.getByRole('button', { name: 'Sign in' }).click()
    const relays = other.getByRole('region', { name: 'Relays the daemon serves apps on' })
    await relays.getByRole('row').filter({ hasText: 'ws://127.0.0.1:1' }).getByRole('cell', { name: 'NOT connected' }).waitFor()
    assert.is(await other.getByTestId('embedded-relay').count(), 0, 'no embedded relay runs beside configured relays')
    // The relay rows come with the mock flag (one answer): it has been read by now.
    assert.is(await other.getByText('MOCK MODE').count(), 0, 'no mock banner when test mode is off')
    await other.close()
  } finally {
    await offline.stop()
  }
})

pages.run()
