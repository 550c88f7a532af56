// Scanning a QR code with the camera on the wallet page, end to end in Debian's headless Chromium against the real
// daemon. Chromium's fake camera shows a Y4M video the test writes: a QR code of a real invoice of another wallet on
// the daemon (inside a BIP21 `bitcoin:` URI, as a "unified" code), of an LNURL with `lightning:` before it (light on
// dark), or of nothing. Scan fills the send field with what the page can pay, stops the camera (every track ends) and goes on to
// the confirmation; paying then moves the money once. At 375 px in dark mode the camera's picture fits the screen,
// and Stop the camera stops it. A camera refused shows the refusal and no picture. Chromium on Linux has no
// BarcodeDetector, so jsQR, bundled into the page, is the decoder here; the test checks that it is.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { eventually, findChromium, launchBrowser, type Browser } from '../support/browser.js'
import { writeBlankVideo, writeQrVideo } from '../support/qr-video.js'

const chromiumPath = findChromium()
const e2e = suite('scanning a QR code on the wallet page')
let daemon: TestDaemon
let dir: string
let link: string
let appToken: string
const browsers: Browser[] = []
/** Uncaught errors and CSP refusals on every page: none allowed. */
const pageErrors: string[] = []

const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
const asApp = () => ({ authorization: `Bearer ${appToken}` })

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
const balanceOf = async (identifier: string) => (await ok('/api/app/user/get', { user_identifier: identifier }, asApp())).info.balance as number

/**
 * Chromium whose camera shows `video` (granted without asking when `granted`, else asked, which headless Chromium
 * answers no), and on it the wallet page of the link, on the Send tab. The page's getUserMedia is wrapped to keep what
 * it asked for and the streams it got, so the test can see every track end.
 */
async function walletWithCamera(video: string, opts: { granted: boolean; viewport?: { width: number; height: number } }): Promise<Page> {
  const browser = await launchBrowser(chromiumPath!, opts.viewport, [
    ...(opts.granted ? ['--use-fake-ui-for-media-stream'] : []),
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-video-capture=${video}`,
  ])
  browsers.push(browser)
  const page = await browser.context.newPage()
  page.setDefaultTimeout(15_000)
  page.on('pageerror', err => pageErrors.push(err.message))
  page.on('console', message => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) pageErrors.push(message.text())
  })
  const response = (await page.goto(link))!
  // No Permissions-Policy keeps the camera from the page (were there one, it would have to allow camera for self).
  const permissions = response.headers()['permissions-policy']
  assert.ok(permissions === undefined || /camera=\(self\)/.test(permissions), `Permissions-Policy: ${permissions}`)
  await page.locator('#balance').filter({ hasText: 'sats' }).waitFor()
  await page.evaluate(`{
    const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices)
    window.cameraAsked = []
    window.cameraStreams = []
    navigator.mediaDevices.getUserMedia = async constraints => {
      window.cameraAsked.push(constraints)
      const stream = await getUserMedia(constraints)
      window.cameraStreams.push(stream)
      return stream
    }
  }`)
  await page.getByRole('button', { name: 'Send', exact: true }).click()
  return page
}

/** The camera's tracks the page was given, and whether each has ended. */
const tracksEnded = (page: Page) =>
  page.evaluate<boolean[]>('window.cameraStreams.flatMap(stream => stream.getTracks().map(track => track.readyState === "ended"))')

/**
 * Waits for the send field to be filled. (Playwright's waitForFunction evaluates a string with eval, which the page's
 * policy refuses; page.evaluate is not bound by it.)
 */
const filled = (page: Page) => eventually(() => page.evaluate<boolean>(`document.getElementById('send-text').value !== ''`), 'the send field to be filled')

e2e.before(async () => {
  if (!chromiumPath) return
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-wallet-scan-'))
  // LNURL on the loopback address this test daemon listens on: a test setting.
  daemon = await startDaemon({ config: '[lnurl]\nallow_loopback = true\n[callbacks]\nallow_loopback = true\n' })
  appToken = (await ok('/api/admin/app/add', { name: 'scan-shop', allow_user_creation: false }, admin())).auth_token
  for (const identifier of ['grace', 'heidi']) await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, asApp())
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'grace', amount: 5_000 }, asApp())
  const created = await ok('/api/operator/users/wallet-link', { identifier: 'grace' }, admin())
  daemon.secrets.add('the wallet link', created.secret)
  link = `${daemon.url}${created.path}`
})
e2e.after(async () => {
  for (const browser of browsers) await browser.close()
  await daemon?.stop()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

e2e("scanning another wallet's invoice in a BIP21 QR code fills the field with the invoice, stops the camera, and pays it once", async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); scanning was not tested')
  const invoice = (await ok('/api/app/user/add/invoice', {
    receiver_identifier: 'heidi', payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: 700, memo: 'scanned' },
  }, asApp())).invoice as string
  const video = path.join(dir, 'invoice.y4m')
  // A unified code as wallets show it, in capitals for the alphanumeric mode: an on-chain address and the invoice.
  writeQrVideo(video, `BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ?AMOUNT=0.000007&LIGHTNING=${invoice.toUpperCase()}`)
  const page = await walletWithCamera(video, { granted: true })
  assert.is(await page.evaluate<boolean>("'BarcodeDetector' in window"), false, 'Chromium on Linux has no BarcodeDetector')
  const field = page.getByLabel('Lightning invoice, LNURL or Lightning address')
  assert.is(await field.inputValue(), '')
  await page.getByRole('button', { name: 'Scan a QR code' }).click()
  await filled(page)
  assert.is((await field.inputValue()).toLowerCase(), invoice, 'the invoice alone, out of the bitcoin: URI')
  assert.is(await page.locator('#scan').getAttribute('data-decoder'), 'jsQR', 'jsQR read the frames')
  console.log('  note: the QR code was read by jsQR (no BarcodeDetector in this Chromium)')
  await page.getByText('Pay 700 sats, plus the service fee?').waitFor()
  assert.is(await page.locator('#scan-video').isVisible(), false, 'the camera picture is gone')
  const ended = await tracksEnded(page)
  assert.ok(ended.length > 0 && ended.every(Boolean), `every camera track stopped: ${JSON.stringify(ended)}`)
  assert.equal(await page.evaluate('window.cameraAsked'), [{ audio: false, video: { facingMode: { ideal: 'environment' } } }], 'the rear camera, once')

  const before = await balanceOf('grace')
  const heidiBefore = await balanceOf('heidi')
  await page.getByRole('button', { name: 'Pay 700 sats' }).click()
  const result = await page.getByText(/^Paid 700 sats \(fee \d+ sats?\)\.$/).textContent()
  const fee = Number(/fee (\d+) sat/.exec(result!)![1])
  // Moved once: the payer lost the amount and the fee shown, the payee got the amount, and each saw one payment.
  assert.is(await balanceOf('grace'), before - 700 - fee)
  assert.is(await balanceOf('heidi'), heidiBefore + 700)
  const token = (await ok('/api/operator/users/token', { identifier: 'grace' }, admin())).token
  const history = await ok('/api/user/operations', {
    latestIncomingInvoice: { ts: 0, id: 0 }, latestOutgoingInvoice: { ts: 0, id: 0 }, latestIncomingTx: { ts: 0, id: 0 },
    latestOutgoingTx: { ts: 0, id: 0 }, latestIncomingUserToUserPayment: { ts: 0, id: 0 }, latestOutgoingUserToUserPayment: { ts: 0, id: 0 },
    max_size: 50,
  }, { authorization: `Bearer ${token}` })
  const sent = [...history.latestOutgoingInvoiceOperations.operations, ...history.latestOutgoingUserToUserPayemnts.operations]
  assert.is(sent.filter((op: { amount: number }) => op.amount === 700).length, 1, 'one payment of 700 sats')
  assert.equal(pageErrors, [])
})

e2e('a lightning: LNURL in a QR code, light on dark, fills the field without the prefix, and the page resolves whom it pays', async () => {
  if (!chromiumPath) return
  const heidi = { authorization: `Bearer ${(await ok('/api/operator/users/token', { identifier: 'heidi' }, admin())).token}` }
  const lnurl = (await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: heidi })).json.lnurl as string
  assert.match(lnurl, /^lnurl1/)
  const video = path.join(dir, 'lnurl.y4m')
  // Light on dark, as some wallets show a code in dark mode: jsQR reads the frames the page inverts.
  writeQrVideo(video, `LIGHTNING:${lnurl.toUpperCase()}`, { lightOnDark: true })
  const page = await walletWithCamera(video, { granted: true })
  await page.getByRole('button', { name: 'Scan a QR code' }).click()
  await filled(page)
  assert.is(await page.getByLabel('Lightning invoice, LNURL or Lightning address').inputValue(), lnurl.toUpperCase())
  const host = daemon.url.replace('http://', '').replace(/[.]/g, '\\.')
  await page.getByText(new RegExp(`^Pay ${host}( \\(.+\\))?: from 10 sats to [\\d,]+ sats, plus the service fee\\.$`)).waitFor()
  const ended = await tracksEnded(page)
  assert.ok(ended.length > 0 && ended.every(Boolean), `every camera track stopped: ${JSON.stringify(ended)}`)
  assert.equal(pageErrors, [])
})

e2e("at 375 px in dark mode the camera's picture fits the screen, and Stop the camera stops it", async () => {
  if (!chromiumPath) return
  const video = path.join(dir, 'blank.y4m')
  writeBlankVideo(video)
  const page = await walletWithCamera(video, { granted: true, viewport: { width: 375, height: 800 } })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.getByRole('button', { name: 'Scan a QR code' }).click()
  await page.getByText('Point the camera at the QR code.').waitFor()
  // The picture plays: the camera's frames reach the video element.
  await eventually(() => page.evaluate<boolean>(`document.getElementById('scan-video').videoWidth > 0`), 'the camera picture')
  assert.ok(await page.locator('#scan-video').isVisible())
  const beyond = await page.evaluate<string[]>(`[...document.querySelectorAll('button, input, textarea, video, p')]
    .filter(el => el.offsetParent !== null && el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .map(el => el.tagName + ' ' + (el.id || el.textContent.trim().slice(0, 30)))`)
  assert.equal(beyond, [], 'controls beyond the right edge')
  assert.ok(await page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), 'scrolls sideways')
  /** The sum of the red, green and blue of an element's text colour (0 black, 765 white). */
  const textOf = (selector: string) => page.evaluate<number>(`getComputedStyle(document.querySelector('${selector}')).color.match(/\\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0)`)
  assert.ok((await textOf('#scan-state')) > 400, 'light text on the dark page')
  assert.ok((await textOf('#scan-cancel')) > 400, 'a light button label on the dark page')
  assert.equal(await tracksEnded(page), [false], 'the camera runs')
  await page.getByRole('button', { name: 'Stop the camera' }).click()
  await eventually(async () => (await tracksEnded(page)).every(Boolean), 'the camera to stop')
  assert.is(await page.locator('#scan-video').isVisible(), false)
  assert.is(await page.getByLabel('Lightning invoice, LNURL or Lightning address').inputValue(), '', 'nothing read, nothing filled')
  assert.equal(pageErrors, [])
})

e2e('a camera refused: the page says so and what to do, and shows no picture', async () => {
  if (!chromiumPath) return
  const video = path.join(dir, 'refused.y4m')
  writeBlankVideo(video)
  const page = await walletWithCamera(video, { granted: false })
  await page.getByRole('button', { name: 'Scan a QR code' }).click()
  await page.getByRole('alert').filter({ hasText: /^The camera was refused\. To scan, allow this page to use the camera/ }).waitFor()
  assert.is(await page.locator('#scan-video').isVisible(), false, 'no picture')
  assert.is(await page.locator('#scan').isVisible(), false)
  assert.equal(await page.evaluate('window.cameraStreams.length'), 0, 'no camera was opened')
  assert.ok(await page.getByRole('button', { name: 'Scan a QR code' }).isEnabled(), 'Scan can be pressed again')
  assert.equal(pageErrors, [])
})

e2e.run()
