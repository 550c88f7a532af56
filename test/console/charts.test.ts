// The Charts page in Debian's headless Chromium against the real daemon, on metrics files with a stretch the daemon
// recorded nothing in (written before it starts, an hour back: ten minutes of samples, thirty without, five more)
// and on what it records live (a payment to an outside node that fails). Checked: no line is drawn across the
// stretch without data (the canvas' pixels in its middle), the users' total and the node's assets each on their own
// axis with its unit and range, and a minute of the failures chart opens what failed then: the failed calls counted,
// why they failed (the reason the caller got, kept by the daemon for its latest failures; none for the written
// history, which is older than the daemon), and a link that lists the failed payments of that window in Invoices &
// payments.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { encodeBundleSample, encodeUsageRecord, openTlvFileStore } from '../../src/metrics/index.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { eventually, findChromium, launchBrowser, signInToConsole, type Browser } from '../support/browser.js'
import { screenshotForDocs } from '../support/docs-screenshots.js'

const chromiumPath = findChromium()
const charts = suite('the Charts page in Chromium')
let daemon: TestDaemon
let browser: Browser
let page: Page
let dir: string
const pageErrors: string[] = []
/** The first minute of the written history: an hour before the daemon starts. */
const t0 = Math.floor(Date.now() / 60_000) * 60 - 3600
const minute = (n: number) => t0 + n * 60

/** Ten minutes of samples, thirty without any record, then five more: users 1,000 → 9,000 sats, node 2,000,000 → 2,500,000. */
function writeHistory(dataDir: string): void {
  const bundle = openTlvFileStore({ root: path.join(dataDir, 'metrics', 'bundle') })
  for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 40, 41, 42, 43, 44]) {
    bundle.append('_root', 'memory_rss_kb', encodeBundleSample(minute(n) + 5, 50_000 + n))
  }
  bundle.append('_root', 'usersBalance', encodeBundleSample(minute(0) + 10, 1000))
  bundle.append('_root', 'totalLndBalance', encodeBundleSample(minute(0) + 10, 2_000_000))
  bundle.append('_root', 'usersBalance', encodeBundleSample(minute(40) + 10, 9000))
  bundle.append('_root', 'totalLndBalance', encodeBundleSample(minute(40) + 10, 2_500_000))
  bundle.append('_root', 'paidAnInvoice_user_internal', encodeBundleSample(minute(1) + 20, 300))
  bundle.append('_root', 'paidAnInvoice_user_internal', encodeBundleSample(minute(42) + 20, 700))
  bundle.flush()
  const usage = openTlvFileStore({ root: path.join(dataDir, 'metrics', 'usage') })
  const call = { parseUs: 0, authUs: 100, validateUs: 100, handleUs: 2000, batchSize: 0, batch: false, nostr: false }
  usage.append('_root', 'GetUserInfo', encodeUsageRecord({ ...call, processedAtSeconds: minute(3) + 30, success: true }))
  usage.append('_root', 'AddPeer', encodeUsageRecord({ ...call, processedAtSeconds: minute(3) + 31, success: false }))
  usage.append('_root', 'AddPeer', encodeUsageRecord({ ...call, processedAtSeconds: minute(3) + 32, success: false }))
  usage.flush()
}

charts.before(async () => {
  if (!chromiumPath) return
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-console-charts-'))
  const dataDir = path.join(dir, 'data')
  writeHistory(dataDir)
  daemon = await startDaemon({ dataDir, config: '[metrics]\nsample_seconds = 1\n' })
  browser = await launchBrowser(chromiumPath)
  page = await browser.context.newPage()
  page.setDefaultTimeout(10_000)
  await signInToConsole(page, daemon, pageErrors)
})
charts.after(async () => {
  await browser?.close()
  await daemon?.stop()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

/** How many pixels of `color` the plot area of `testId`'s chart has between minutes `from` and `to` of the history. */
async function pixels(testId: string, color: [number, number, number], from: number, to: number): Promise<number> {
  const figure = page.getByTestId(testId)
  const canvas = (await figure.locator('canvas').boundingBox())!
  const over = (await figure.locator('.u-over').boundingBox())!
  const first = t0
  const last = Math.floor(Number(await figure.getAttribute('data-last-minute')))
  const x = (unix: number) => Math.round(over.x - canvas.x + ((unix - first) / (last - first)) * over.width)
  return figure.locator('canvas').evaluate((el, box) => {
    // The test's types have no DOM: the canvas' few members used here.
    const c = el as unknown as {
      width: number
      getBoundingClientRect(): { width: number }
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null
    }
    const scale = c.width / c.getBoundingClientRect().width
    const data = c.getContext('2d')!.getImageData(Math.round(box.left * scale), Math.round(box.top * scale),
      Math.max(1, Math.round((box.right - box.left) * scale)), Math.round(box.height * scale)).data
    let found = 0
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i]! - box.color[0]) < 40 && Math.abs(data[i + 1]! - box.color[1]) < 40 && Math.abs(data[i + 2]! - box.color[2]) < 40 && data[i + 3]! > 100) found++
    }
    return found
  }, { left: x(minute(from)), right: x(minute(to)), top: over.y - canvas.y, height: over.height, color })
}

charts('no line across the minutes without data; the balances each on their own labelled axis; a failure opens what failed', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the charts were not tested')
  // A payment to another node: the embedded node has no route there, so it fails, live.
  const appToken = (await daemon.request('POST', '/api/admin/app/add', { body: { name: 'charts-shop', allow_user_creation: true }, headers: { authorization: `Bearer ${daemon.adminToken}` } })).json.auth_token
  const asApp = { authorization: `Bearer ${appToken}` }
  await daemon.request('POST', '/api/app/user/add', { body: { identifier: 'alice', fail_if_exists: true, balance: 0 }, headers: asApp })
  await daemon.request('POST', '/api/app/mock/user/blance/set', { body: { user_identifier: 'alice', amount: 5000 }, headers: asApp })
  const outside = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 1_234_000 })
  const paid = await daemon.request('POST', '/api/app/invoice/pay', { body: { user_identifier: 'alice', invoice: outside.paymentRequest, amount: 0 }, headers: asApp })
  assert.is(paid.json.status, 'ERROR', `the payment to another node fails: ${paid.text}`)
  const reason: string = paid.json.reason

  await page.goto(`${daemon.url}/console/#/charts`)
  await page.getByRole('heading', { name: 'Charts' }).waitFor()
  const failures = page.getByTestId('failures-chart')
  await eventually(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click()
    return Number(await failures.getAttribute('data-points')) >= 3
  }, 'the failed payment recorded live')
  for (const id of ['payments-chart', 'users-balance-chart', 'node-assets-chart', 'failures-chart', 'latency-chart']) {
    await page.locator(`[data-testid=${id}] canvas`).first().waitFor({ state: 'attached' })
  }

  // Minutes 10 to 39 hold no record: nothing drawn in their middle, while the minutes either side have their lines.
  const green: [number, number, number] = [0x16, 0xa3, 0x4a]
  const orange: [number, number, number] = [0xc2, 0x41, 0x0c]
  assert.ok((await pixels('users-balance-chart', green, 1, 8)) > 0, "the users' total is drawn where it was recorded")
  assert.is(await pixels('users-balance-chart', green, 15, 34), 0, "no users' total line across the stretch without data")
  assert.ok((await pixels('payments-chart', orange, 1, 8)) > 0, 'the payments are drawn where they were recorded')
  assert.is(await pixels('payments-chart', orange, 15, 34), 0, 'no payments line across the stretch without data')

  // Each balance on its own axis, in sats, from its lowest to its highest value.
  const users = (await page.getByTestId('users-balance-chart').getByTestId('axes').textContent())!
  const node = (await page.getByTestId('node-assets-chart').getByTestId('axes').textContent())!
  assert.match(users, /^Left axis: sats, [\d,]+ to 9,000\.$/)
  assert.match(node, /^Left axis: sats, [\d,]+ to [\d,]+\.$/)
  assert.not.equal(node, users, 'the node has a scale of its own')

  // A click on the failures chart at the history's minute 3 lists its two failed AddPeer calls.
  const over = (await failures.locator('.u-over').boundingBox())!
  const last = Number(await failures.getAttribute('data-last-minute'))
  await failures.locator('.u-over').click({ position: { x: ((minute(3) + 30 - t0) / (last - t0)) * over.width, y: over.height / 2 } })
  const picked = page.getByTestId('failures-of-minute')
  await picked.getByRole('region', { name: /^Failed calls at/ }).getByRole('row').filter({ hasText: 'AddPeer' }).filter({ hasText: '2' }).waitFor()
  // Written before the daemon started: counted, but no reason is kept for it, and the page says why.
  const reasons = picked.getByRole('region', { name: /^Why calls failed at/ })
  await reasons.getByText('No reason kept for this minute.').waitFor()
  assert.match((await picked.getByTestId('reasons-kept').textContent())!.replace(/\s+/g, ' '),
    /reasons are kept in memory for the last 1,000 failed calls since the daemon started/)

  // The live failure's minute, from the list under the chart: its failed payment, listed in Invoices & payments.
  await page.getByRole('button', { name: /^\d\d:\d\d$/ }).last().click()
  await picked.getByText(/^1 failed payment:/).waitFor()
  // Why: the reason the app was answered, under the operation, the app and the error code.
  const why = reasons.getByRole('row').filter({ hasText: 'PayAppUserInvoice' }).filter({ hasText: reason })
  await why.waitFor()
  const cells = (await why.locator('td').allTextContents()).map(text => text.trim())
  assert.equal([cells[0], cells[2], cells[3], cells[4]], ['PayAppUserInvoice', 'upstream_failed', reason, '1'])
  assert.match(cells[1]!, /^[0-9a-f]{64}$/, "the app's id")
  // The page as the README shows it: the stretch without data, the labelled axes and what failed in a minute.
  await screenshotForDocs(page, 'console-charts.png', {
    viewport: { width: 1200, height: 800 },
    region: [page.getByRole('heading', { name: 'Charts', level: 1 }), picked],
    secrets: [daemon.adminToken],
  })
  await picked.getByRole('link', { name: /^list the failed payments/ }).click()
  await page.getByRole('heading', { name: 'Invoices & payments' }).waitFor()
  assert.match(page.url(), /#\/payments\?status=failed&since=\d+&until=\d+$/)
  await page.getByTestId('payments-window').waitFor()
  const rows = page.getByRole('region', { name: 'Invoices and payments, newest first' }).locator('tbody tr')
  await eventually(async () => (await rows.count()) === 1 && ((await rows.textContent()) ?? '').includes('1,234 sats'), 'the failed payment listed')
  assert.match((await rows.textContent())!, /failed/)
  assert.equal(pageErrors, [])
})

charts.run()
