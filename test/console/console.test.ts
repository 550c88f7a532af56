// The operator console end to end in Debian's headless Chromium against the real daemon: sign in (a wrong token
// first), add an app and two users, fund one in test mode, pay the other and see the payment in the payments list
// and the chart, create an NWC connection and read its QR code back, build a menu and see an edited item on the
// customer order page, download a model from the loopback model host until 100%, keyboard and label checks,
// every page at 375 px without sideways scrolling, then sign out and be refused.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { whisperCatalogue } from '../../src/models/index.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startModelHost, type ModelHost } from '../support/model-host.js'
import { fakeEntry, fakeModelBytes } from '../models/fixture.js'
import { eventually, findChromium, launchBrowser, type Browser } from '../support/browser.js'
import { screenshotForDocs } from '../support/docs-screenshots.js'

const chromiumPath = findChromium()
const e2e = suite('the operator console in Chromium')
let daemon: TestDaemon
let host: ModelHost
let browser: Browser
let page: Page
/** The confirmations the console asked, in order. */
const asked: string[] = []
let dir: string
/** Uncaught errors and CSP refusals the console page reported: none allowed. */
const pageErrors: string[] = []

const pages = ['overview', 'apps', 'users', 'payments', 'node', 'nwc', 'links', 'charts', 'restaurant', 'payroll', 'models']

e2e.before(async () => {
  if (!chromiumPath) return
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-console-'))
  const model = fakeModelBytes(512 * 1024, 'console-tiny')
  // 32 chunks 60 ms apart: about 2 s of download, long enough to see the progress between 0 and 100%.
  host = await startModelHost({ chunkBytes: 16 * 1024, chunkDelayMs: 60 })
  host.serve('ggml-tiny.bin', model)
  const catalogueFile = path.join(dir, 'catalogue.json')
  fs.writeFileSync(catalogueFile, JSON.stringify(whisperCatalogue.map(entry => (entry.name === 'tiny' ? fakeEntry('tiny', model) : entry))))
  daemon = await startDaemon({
    config: `[models]\nengine = "assume_installed"\nbase_url = "${host.baseUrl}"\ntest_catalogue_file = "${catalogueFile}"\n`,
  })
  browser = await launchBrowser(chromiumPath)
  page = await browser.context.newPage()
  // Buttons that move money or destroy something ask first: every question is accepted here and kept, to be checked.
  page.on('dialog', dialog => {
    asked.push(dialog.message())
    void dialog.accept()
  })
  page.setDefaultTimeout(10_000)
  page.on('pageerror', err => pageErrors.push(err.message))
  page.on('console', message => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) pageErrors.push(message.text())
  })
})
e2e.after(async () => {
  await browser?.close()
  await daemon?.stop()
  await host?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

async function open(name: string): Promise<void> {
  await page.goto(`${daemon.url}/console/#/${name}`)
  await page.locator('h1').first().waitFor()
}

/** Every input, select and textarea on the page has a label, and every button a name. */
async function unlabelled(): Promise<string[]> {
  // Run in the page (the test's own types have no DOM).
  return page.evaluate(`[
    ...[...document.querySelectorAll('input, select, textarea')]
      .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
      .map(el => el.tagName + ' ' + (el.getAttribute('name') || '')),
    ...[...document.querySelectorAll('button')].filter(b => !b.textContent.trim() && !b.getAttribute('aria-label')).map(() => 'BUTTON without a name'),
  ]`)
}

const noSidewaysScroll = () => page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth')
const focused = (what: 'name' | 'text') =>
  page.evaluate<string | null>(what === 'name' ? "document.activeElement && document.activeElement.getAttribute('name')" : 'document.activeElement && document.activeElement.textContent')

e2e('sign in: a wrong token is refused with a message, the right one opens the overview', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the console was not tested')
  await page.goto(`${daemon.url}/console/`)
  // Keyboard: the first Tab reaches the token field, the next the button.
  await page.getByLabel('Admin token').waitFor()
  await page.keyboard.press('Tab')
  assert.is(await focused('name'), 'token')
  await page.keyboard.type('wrong-token-0123456789')
  await page.keyboard.press('Tab')
  assert.is(await focused('text'), 'Sign in')
  await page.keyboard.press('Enter')
  await page.getByRole('alert').filter({ hasText: 'not the admin token' }).waitFor()
  assert.equal(await unlabelled(), [])
  await page.waitForTimeout(600) // the per-address wait after one wrong token
  await page.getByLabel('Admin token').fill(daemon.adminToken)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  assert.is(await page.evaluate<number>('localStorage.length + sessionStorage.length'), 0, 'nothing kept in web storage')
  assert.is((await browser.context.cookies()).find(c => c.name === 'relaypay_console')?.httpOnly, true)
  await page.getByText('relaypay', { exact: true }).first().waitFor()
  // Mock mode is on in this test daemon, and shown loudly.
  await page.getByRole('alert').filter({ hasText: 'MOCK MODE' }).waitFor()
  // The embedded relay's link is up; its connections and store are shown against their limits.
  await page.getByRole('cell', { name: 'connected', exact: true }).waitFor()
  await eventually(async () => /Embedded relay connections[1-9]\d* of 1024/.test((await page.getByTestId('embedded-relay').textContent()) ?? ''), 'relay connections')
  assert.match((await page.getByTestId('embedded-relay').textContent()) ?? '', /Embedded relay store\d+\.\d MiB of 256\.0 MiB quota/)
  // With no [nostr] public_relays, connection strings name the loopback relay: said in red, naming the setting.
  const named = (await page.getByTestId('public-relays').textContent()) ?? ''
  assert.match(named, /^Named in connection stringsws:\/\/127\.0\.0\.1:\d+Reachable fromthis machine only: .*\[nostr\] public_relays/)
  await eventually(async () => (await page.getByTestId('audit-result').textContent())?.startsWith('clean') ?? false, 'the start audit shown')
  await screenshotForDocs(page, 'console-overview.png', { secrets: [daemon.adminToken] })
  // Keyboard: Tab from the top reaches the Apps link, and Enter opens the page.
  await page.evaluate('document.activeElement && document.activeElement.blur()')
  let reached = false
  for (let i = 0; i < 15 && !reached; i++) {
    await page.keyboard.press('Tab')
    reached = (await focused('text')) === 'Apps'
  }
  assert.ok(reached, 'Tab reaches the Apps link')
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor()
})

e2e('add an app and two users, fund one in test mode, pay the other; the payment is listed and charted', async () => {
  if (!chromiumPath) return
  await open('apps')
  await page.getByLabel('App name').fill('console-shop')
  await page.getByRole('button', { name: 'Add app' }).click()
  await page.getByText('App console-shop added.').waitFor()
  const firstToken = await page.locator('.secret textarea').inputValue()
  assert.match(firstToken, /^ey/, 'the app token is shown once')
  // A secret shown once has a copy button, and the clipboard then holds it.
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(daemon.url).origin })
  await page.getByRole('button', { name: 'Copy the app token of console-shop' }).click()
  await page.getByRole('button', { name: 'Copy the app token of console-shop' }).getByText('Copied').waitFor()
  assert.is(await page.evaluate('navigator.clipboard.readText()'), firstToken)
  await page.getByRole('cell', { name: 'console-shop', exact: true }).waitFor()
  // Rotating the token: the page shows the new one, and the old one is refused from then on.
  const getApp = (token: string) => daemon.request('POST', '/api/app/get', { headers: { authorization: `Bearer ${token}` } })
  assert.is((await getApp(firstToken)).status, 200)
  await page.getByRole('button', { name: 'Rotate the token of console-shop' }).click()
  await page.getByText('A new token for console-shop is shown above; the old one no longer works.').waitFor()
  assert.is(asked.at(-1), 'Rotate the token of console-shop? Every token issued for it before stops working at once.')
  const rotated = await page.locator('.secret textarea').inputValue()
  assert.is.not(rotated, firstToken)
  assert.match((await getApp(firstToken)).text, /replaced by a newer one/)
  assert.is((await getApp(rotated)).status, 200)

  await open('users')
  await page.getByLabel('App', { exact: true }).selectOption('console-shop')
  for (const name of ['alice', 'bob']) {
    await page.getByLabel("New user's identifier").fill(name)
    await page.getByRole('button', { name: 'Add user' }).click()
    await page.getByText(`User ${name} added to console-shop.`).waitFor()
  }
  await page.getByLabel('User to fund').fill('alice')
  await page.getByLabel('New balance (sats)').fill('5000')
  await page.getByRole('button', { name: 'Set balance' }).click()
  await page.getByText('Balance of alice set to 5,000 sats.').waitFor()
  // Refused before the receiver's invoice is made: more than alice can send, and a receiver that is no user of the
  // app (the invoice would have created it). Neither leaves an invoice or a user behind.
  const admin = { headers: { authorization: `Bearer ${daemon.adminToken}` } }
  const rowsOf = async (query: string) => (await daemon.request('GET', `/api/operator/payments?query=${query}`, admin)).json.payments as unknown[]
  await page.getByLabel('From user').fill('alice')
  await page.getByLabel('To user').fill('bob')
  await page.getByLabel('Amount (sats)').fill('6000')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()
  await page.getByText(/^alice can send at most 4,\d{3} sats \(its balance less the service fee\); nothing was paid\.$/).waitFor()
  assert.equal(await rowsOf('bob'), [], 'no invoice of bob left behind')
  await page.getByLabel('To user').fill('bobb')
  await page.getByLabel('Amount (sats)').fill('100')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()
  await page.getByText('No user bobb in console-shop, the app of alice: payments between users stay inside one app.').waitFor()
  assert.equal((await daemon.request('GET', '/api/operator/users?query=bobb', admin)).json.users, [], 'bobb was not created')
  await page.getByLabel('To user').fill('bob')
  await page.getByLabel('Amount (sats)').fill('1200')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()
  await page.getByText(/Paid 1,200 sats from alice to bob/).waitFor()
  assert.is(asked.at(-1), 'Pay 1,200 sats from alice to bob, plus the service fee?')
  assert.not.ok(asked.some(q => q.includes('6,000')), 'the refused payments asked nothing: they were refused before')
  await page.getByLabel('Identifier, user id or npub').fill('bob')
  await page.getByRole('button', { name: 'Search' }).click()
  await eventually(async () => (await page.getByTestId('balance-bob').textContent()) === '1,200 sats', "bob's balance")
  // Every wallet, most recently active first (the admin's user view, GetUsersAdminInfo): bob with what he holds.
  const everyWallet = page.getByRole('region', { name: 'All wallets, most recently active first' })
  await eventually(async () => ((await everyWallet.getByRole('row').filter({ hasText: 'bob' }).first().textContent()) ?? '').includes('1,200 sats'), 'bob among all wallets')
  const total = (await daemon.request('POST', '/api/admin/users/info', { body: {}, ...admin })).json.total
  assert.is(await page.getByTestId('wallets-range').textContent(), `1–${Math.min(20, total)} of ${total}`)

  await open('payments')
  await page.getByLabel('Hash, user id or identifier').fill('bob')
  await page.getByRole('button', { name: 'Search' }).click()
  const row = page.getByRole('row').filter({ hasText: '1,200 sats' }).filter({ hasText: 'paid' })
  await row.first().waitFor()
  await row.first().getByRole('button').click()
  await page.getByText('between wallets of this service').waitFor()

  await open('charts')
  await eventually(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click()
    return Number(await page.getByTestId('payments-chart').getAttribute('data-points')) >= 1
  }, 'the payment in the chart')
  // uPlot draws in an effect, which Preact runs after the render that set data-points: wait for the canvas.
  await page.locator('[data-testid=payments-chart] canvas').first().waitFor({ state: 'attached' })
})

e2e('receive: an invoice for any user, its QR code reads back as the invoice, and the page turns paid', async () => {
  if (!chromiumPath) return
  await open('users')
  await page.getByLabel('Receiving user').fill('bob')
  await page.getByLabel('Amount to receive (sats)').fill('321')
  await page.getByLabel('Memo').fill('table 4')
  await page.getByRole('button', { name: 'Create invoice' }).click()
  await page.getByText('An invoice of 321 sats for bob is shown below.').waitFor()
  const invoice = await page.getByRole('textbox', { name: 'The invoice' }).inputValue()
  assert.match(invoice, /^lnbcrt3210n1/)
  assert.is(await page.getByTestId('receive-state').textContent(), 'Waiting for the payment…')
  const shot = path.join(dir, 'receive-qr.png')
  await page.getByRole('img', { name: 'QR code of the invoice for bob' }).screenshot({ path: shot })
  if (fs.existsSync('/usr/bin/zbarimg')) {
    const read = spawnSync('/usr/bin/zbarimg', ['-q', '--raw', shot], { encoding: 'utf8' })
    assert.is(read.stdout.trim(), invoice)
  } else console.log('  note: zbarimg is not installed (apt-get install zbar-tools); the QR code was not decoded')
  // Paid from alice's wallet with the console's own form: the receiving side turns paid by itself.
  await page.getByLabel('Paying user').fill('alice')
  await page.getByLabel('Lightning invoice').fill(invoice)
  await page.getByRole('button', { name: 'Pay invoice' }).click()
  await page.getByText(/^Paid 321 sats from alice/).waitFor()
  await page.getByTestId('receive-state').getByText('Paid: 321 sats to bob.').waitFor()
  await page.getByTestId('receive-state').scrollIntoViewIfNeeded()
  await screenshotForDocs(page, 'console-receive.png', { secrets: [daemon.adminToken] })
})

e2e('create an NWC connection with a budget; its QR code reads back as the connection string', async () => {
  if (!chromiumPath) return
  await open('nwc')
  await page.getByLabel('User identifier').fill('alice')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByLabel('Connection name').fill('Point of sale')
  await page.getByLabel('Budget (sats, 0 for none)').fill('2000')
  await page.getByRole('button', { name: 'Create connection' }).click()
  const created = page.getByTestId('nwc-created')
  await created.waitFor()
  const uri = await created.locator('textarea').inputValue()
  assert.match(uri, /^nostr\+walletconnect:\/\/[0-9a-f]{64}\?relay=.+&secret=[0-9a-f]{64}/)
  await created.getByRole('button', { name: 'Copy the connection string' }).click()
  await created.getByRole('button', { name: 'Copy the connection string' }).getByText('Copied').waitFor()
  assert.is(await page.evaluate('navigator.clipboard.readText()'), uri)
  await page.getByRole('cell', { name: /0 sats of 2,000 sats per day/ }).waitFor()
  const shot = path.join(dir, 'nwc-qr.png')
  await created.getByRole('img').screenshot({ path: shot })
  if (fs.existsSync('/usr/bin/zbarimg')) {
    const read = spawnSync('/usr/bin/zbarimg', ['-q', '--raw', shot], { encoding: 'utf8' })
    assert.is(read.stdout.trim(), uri)
  } else console.log('  note: zbarimg is not installed (apt-get install zbar-tools); the QR code was not decoded')
  await page.getByRole('button', { name: 'Revoke Point of sale' }).click()
  await page.getByRole('cell', { name: 'revoked' }).waitFor()
  assert.is(asked.at(-1), 'Revoke Point of sale? The app holding it can no longer use this wallet.')
})

e2e('build a menu, edit an item, and the customer order page shows the change', async () => {
  if (!chromiumPath) return
  await open('restaurant')
  await page.getByLabel("Owner's user identifier").fill('bob')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByLabel('New restaurant name').fill('Console Diner')
  await page.getByLabel('Address name (slug)').fill('console-diner')
  await page.getByRole('button', { name: 'Create restaurant' }).click()
  await page.getByText('Console Diner created.').waitFor()
  await page.getByLabel('Category name').fill('Mains')
  await page.getByRole('button', { name: 'Add category' }).click()
  await page.getByText('Category added.').waitFor()
  await page.getByLabel('Item name').fill('Burger')
  await page.getByLabel('Price (sat)', { exact: true }).fill('2000')
  await page.getByRole('button', { name: 'Add item' }).click()
  await page.getByLabel('Name of Burger').waitFor()
  await page.getByLabel('Name of Burger').fill('Cheeseburger')
  await page.getByLabel('Price (sat) of Burger').fill('2500')
  await page.locator('li.menu-item').getByRole('button', { name: 'Save' }).click()
  await page.getByText('Cheeseburger saved.').waitFor()
  // An option group with a priced option.
  await page.getByRole('button', { name: 'Options & hours' }).click()
  await page.getByLabel('New option group of Cheeseburger').fill('Extras')
  await page.getByRole('button', { name: 'Add group' }).click()
  await page.getByLabel('New option of Cheeseburger').fill('Bacon')
  await page.getByLabel('Extra price').fill('300')
  await page.getByRole('button', { name: 'Add option' }).click()
  await page.getByText('Extras: Bacon (+300)').waitFor()
  assert.equal(await unlabelled(), [])

  const customer = await browser.context.newPage()
  await customer.goto(`${daemon.url}/restaurant/r/console-diner`)
  await customer.getByText('Cheeseburger').waitFor()
  assert.match(await customer.locator('.item').first().textContent() ?? '', /Cheeseburger[\s\S]*2500 sats/)
  // A customer orders; the operator pays the invoice from alice's wallet in the console; the board shows it paid.
  await customer.getByRole('button', { name: 'Add', exact: true }).first().click()
  // The new option group is offered (optional): added without bacon.
  await customer.getByRole('dialog').getByText('Bacon (+300 sats)').waitFor()
  await customer.getByRole('button', { name: 'Add to order' }).click()
  await customer.getByText('(2,500 sats)').waitFor()
  await customer.getByRole('button', { name: 'Place order' }).click()
  await customer.locator('#order-number', { hasText: 'Order #' }).waitFor()
  const number = (await customer.locator('#order-number').textContent())!
  assert.match(number, /^Order #[0-9A-Z]{6}$/)
  const bolt11 = await customer.locator('#bolt11').inputValue()
  await open('users')
  await page.getByLabel('Paying user').fill('alice')
  await page.getByLabel('Lightning invoice').fill(bolt11)
  await page.getByRole('button', { name: 'Pay invoice' }).click()
  await page.getByText('Paid 2,500 sats from alice').waitFor()
  await customer.locator('#order-status[data-status=paid]').waitFor()
  await customer.close()
  await open('restaurant')
  await page.getByLabel("Owner's user identifier").fill('bob')
  await page.getByRole('button', { name: 'Open' }).click()
  const paidColumn = page.getByRole('region', { name: 'Paid orders' })
  await paidColumn.getByText(number.replace('Order ', '')).waitFor()
  await page.getByRole('button', { name: 'Mark accepted' }).click()
  await page.getByRole('cell', { name: number.replace('Order ', ''), exact: true }).waitFor()
})

e2e('invite links, and a wallet\'s CLINK offers', async () => {
  if (!chromiumPath) return
  await open('links')
  await page.getByRole('button', { name: 'Create an invite' }).click()
  await page.getByText('Invite created: it is first in the list.').waitFor()
  await page.getByRole('region', { name: 'Invite links' }).getByRole('row').filter({ has: page.getByTestId('invite-1') }).getByText('unused').waitFor()
  await page.getByLabel('User identifier').fill('alice')
  await page.getByRole('button', { name: 'Open' }).click()
  await page.getByLabel('Offer label').fill('Coffee')
  await page.getByLabel('Price (sats, 0: payer chooses)').fill('150')
  await page.getByRole('button', { name: 'Add offer' }).click()
  const offer = page.getByRole('row').filter({ hasText: 'Coffee' })
  await offer.waitFor()
  assert.match((await offer.textContent()) ?? '', /150 sats\s*noffer1/)
})

e2e('payroll: a contract between two wallets, its schedule, and the payouts as CSV', async () => {
  if (!chromiumPath) return
  const users = (await daemon.request('GET', '/api/operator/users?query=', { headers: { authorization: `Bearer ${daemon.adminToken}` } })).json.users
  const id = (identifier: string) => users.find((u: { identifier: string }) => u.identifier === identifier).user_id
  await open('payroll')
  await page.getByLabel('Contract name').fill('Bob weekly')
  // A pasted wallet id is taken as it is (the picker's list is for finding one by name).
  await page.getByLabel('Employee wallet').fill(id('bob'))
  await page.getByLabel('Paying wallet').fill(id('alice'))
  await page.getByLabel('Amount per period').fill('100')
  await page.getByLabel('Frequency').selectOption('weekly')
  await page.getByLabel('Periods').fill('4')
  await page.getByRole('button', { name: 'Create contract' }).click()
  await page.getByText('Contract created.').waitFor()
  await page.getByRole('row').filter({ hasText: 'Bob weekly' }).getByRole('button', { name: 'Schedule' }).click()
  await page.getByRole('table', { name: 'Paydays of Bob weekly' }).waitFor()
  assert.is(await page.getByRole('table', { name: 'Paydays of Bob weekly' }).locator('tbody tr').count(), 4)
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  assert.is((await download).suggestedFilename(), 'payouts.csv')
})

e2e('download a model from the model host: the progress reaches 100%', async () => {
  if (!chromiumPath) return
  await open('models')
  await page.getByRole('button', { name: 'Download tiny', exact: true }).click()
  await page.getByRole('progressbar', { name: 'Download of tiny' }).waitFor()
  const seen = new Set<string>()
  await eventually(async () => {
    const shown = (await page.getByTestId('progress-tiny').textContent()) ?? ''
    seen.add(shown)
    return shown === '100%'
  }, 'the download at 100%', 30_000)
  assert.ok([...seen].some(shown => /^([1-9]|[1-9]\d)%$/.test(shown)), `the progress is live: seen ${[...seen].join(', ')}`)
  await page.getByText('tiny downloaded.').waitFor()
  // Delete asks first (a confirm dialog, accepted here), then the model can be downloaded again.
  await page.getByRole('button', { name: 'Delete tiny', exact: true }).click()
  await page.getByText('tiny deleted.').waitFor()
  await page.getByRole('button', { name: 'Download tiny', exact: true }).waitFor()
})

e2e('every page has labels and fits a 375 px screen without sideways scrolling', async () => {
  if (!chromiumPath) return
  await page.setViewportSize({ width: 375, height: 800 })
  // And one wallet's own page, reached from the lists of wallets (alice: an app user with a history).
  const alice = (await daemon.request('GET', '/api/operator/users?query=alice', { headers: { authorization: `Bearer ${daemon.adminToken}` } })).json.users[0]
  for (const name of [...pages, `wallet?id=${alice.user_id}`]) {
    await open(name)
    await page.waitForTimeout(300)
    if (name === 'nwc' || name === 'restaurant') {
      await page.getByLabel(name === 'nwc' ? 'User identifier' : "Owner's user identifier").fill(name === 'nwc' ? 'alice' : 'bob')
      await page.getByRole('button', { name: 'Open' }).click()
      await page.waitForTimeout(600)
    }
    assert.equal(await unlabelled(), [], `labels on ${name}`)
    assert.ok(await noSidewaysScroll(), `${name} scrolls sideways at 375 px`)
    // Every button and link of a table is on the screen: a row is a card there, not a frame to scroll sideways.
    const beyond = await page.evaluate<number>(
      `[...document.querySelectorAll('.table-wrap button, .table-wrap a')].map(el => el.getBoundingClientRect()).filter(box => box.width > 0 && box.right > window.innerWidth + 1).length`,
    )
    assert.is(beyond, 0, `${name}: ${beyond} table controls beyond the right edge at 375 px`)
    if (process.env.KEEP_SCREENSHOTS) await page.screenshot({ path: path.join(process.env.KEEP_SCREENSHOTS, `${name}-375.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 1280, height: 900 })
  await open('overview')
  const screenshot = process.env.CONSOLE_SCREENSHOT
  if (screenshot) {
    // The audit run now, so the picture shows the books after the flow above.
    await page.getByRole('button', { name: 'Run the audit' }).click()
    await page.getByText('The books are clean.').waitFor()
    await eventually(async () => /^clean at .*\([1-9]\d* transactions\)$/.test((await page.getByTestId('audit-result').textContent()) ?? ''), 'the audit shown')
    await page.getByRole('cell', { name: 'connected', exact: true }).waitFor()
    await page.screenshot({ path: screenshot, fullPage: true })
  }
})

e2e('sign out: the page asks for the token again and the old session is refused', async () => {
  if (!chromiumPath) return
  await open('overview')
  const csrf = await page.evaluate<string>("fetch('api/session').then(r => r.json()).then(b => b.csrf)")
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('Admin token').waitFor()
  const status = await page.evaluate<number>(`fetch('/api/operator/apps', { headers: { 'x-console-csrf': ${JSON.stringify(csrf)} } }).then(r => r.status)`)
  assert.is(status, 401)
  await page.reload()
  await page.getByLabel('Admin token').waitFor()
  assert.equal(pageErrors, [], 'no script error and nothing the Content-Security-Policy refused, on any page')
})

e2e.run()
