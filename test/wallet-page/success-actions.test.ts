// LUD-09 success actions on the wallet page, in Debian's headless Chromium against the real daemon on the fake LND,
// paying a Lightning address served by a small LNURL server of the test's on loopback: the invoice it hands out is
// another node's, whose preimage the test knows, and the fake LND settles the payment with it. After the payment the
// page shows a `message`, a `url` as a link with its description (no opener, no referrer, not opened by the page), and
// an `aes` secret decrypted with the payment's preimage (LUD-10, AES-256-CBC, encrypted here with node's crypto);
// one that does not decrypt, and ones the daemon finds invalid, show nothing, and the page does not break.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createCipheriv, createHash, randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { balanceOf, ok } from '../support/money.js'
import { until } from '../support/until.js'
import { fakeLndConfig, fundOverFakeLnd } from '../support/lnd-daemon.js'
import { findChromium, launchBrowser, type Browser } from '../support/browser.js'

const chromiumPath = findChromium()
const jwtSecret = 'success-actions-secret-0123456789abcdef'
const e2e = suite('LNURL success actions on the wallet page')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser
let server: http.Server
let host: string
let browser: Browser
let wallet: Page
const pageErrors: string[] = []
/** What the test's LNURL server puts beside its next invoice; the preimage of the last invoice it handed out. */
let nextAction: (preimage: Buffer) => unknown
let lastPreimage: Buffer | undefined

const metadata = JSON.stringify([['text/plain', 'Concert tickets']])
const balance = () => balanceOf(daemon, user.appToken, user.identifier)

/** LUD-10: the plaintext encrypted under the preimage, as a payee's server does it. */
function aesAction(plaintext: string, key: Buffer, description = 'Your ticket code') {
  const iv = randomBytes(16)
  const cipher = createCipheriv('aes-256-cbc', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return { tag: 'aes', description, ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64') }
}

e2e.before(async () => {
  if (!chromiumPath) return
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`)
    let body: unknown
    if (url.pathname === '/callback') {
      const preimage = randomBytes(32)
      lastPreimage = preimage
      const paymentHash = createHash('sha256').update(preimage).digest('hex')
      const pr = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: Number(url.searchParams.get('amount')), paymentHash }).paymentRequest
      body = { pr, routes: [], successAction: nextAction(preimage) }
    } else {
      body = { tag: 'payRequest', callback: `http://${host}/callback`, minSendable: 1000, maxSendable: 1_000_000, metadata, commentAllowed: 0 }
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  fake = await startFakeLnd({ network: 'regtest' })
  daemon = await startDaemon({
    config: jwtSecretConfig(jwtSecret) + '[callbacks]\nallow_loopback = true\n[lnurl]\nallow_loopback = true\n' + fakeLndConfig(fake),
  })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'concert-goer' })
  await fundOverFakeLnd(daemon, fake, user, 5000)
  // Payments to other nodes wait in flight until the test settles them with the preimage it knows.
  fake.node.faults.holdPayments = true
  const link = await ok(daemon, '/api/app/user/wallet-link', user.appToken, { user_identifier: user.identifier })
  daemon.secrets.add('the wallet link', link.secret)
  browser = await launchBrowser(chromiumPath)
  wallet = await browser.context.newPage()
  wallet.setDefaultTimeout(15_000)
  wallet.on('pageerror', err => pageErrors.push(err.message))
  wallet.on('console', message => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) pageErrors.push(message.text())
  })
  await wallet.goto(`${daemon.url}${link.path}`)
  await wallet.getByText('5,000 sats', { exact: true }).waitFor()
  await wallet.getByRole('button', { name: 'Send' }).click()
})
e2e.after(async () => {
  await browser?.close()
  await daemon?.stop()
  await fake?.close()
  if (server) await new Promise(done => server.close(done))
})

/** Pays 21 sats to the test's Lightning address on the page; the fake LND settles it with the invoice's preimage. */
async function payOnThePage(): Promise<void> {
  await wallet.getByLabel('Lightning invoice, LNURL or Lightning address').fill(`tickets@${host}`)
  await wallet.getByRole('button', { name: 'Continue' }).click()
  await wallet.getByText(/^Pay tickets@127\.0\.0\.1:\d+ \(“Concert tickets”\): from 1 sat to 1,000 sats/).waitFor()
  await wallet.getByLabel('Amount to send (sats)').fill('21')
  lastPreimage = undefined
  await wallet.getByRole('button', { name: 'Pay', exact: true }).click()
  await until(() => lastPreimage !== undefined, 'the page to fetch the invoice')
  const preimage = lastPreimage!
  const paymentHash = createHash('sha256').update(preimage).digest('hex')
  await until(() => fake.node.payments.get(paymentHash)?.status === 'IN_FLIGHT', 'the payment to reach LND')
  fake.resolvePayment(paymentHash, { preimage: preimage.toString('hex') })
  await wallet.getByText(/^Paid 21 sats \(fee \d+ sats?\)\.$/).waitFor()
}

const successBox = () => wallet.getByRole('region', { name: 'From the recipient' })

e2e('a message is shown after the payment', async () => {
  if (!chromiumPath) return console.log('  skipped: Chromium is not installed (apt-get install chromium); the wallet page was not tested')
  nextAction = () => ({ tag: 'message', message: 'Thank you! Doors open at 8 pm.' })
  await payOnThePage()
  await successBox().getByText('Thank you! Doors open at 8 pm.', { exact: true }).waitFor()
})

e2e('a url is a link with its description, without opener or referrer, and the page opens nothing by itself', async () => {
  if (!chromiumPath) return
  nextAction = () => ({ tag: 'url', description: 'Your tickets, ready to print', url: `http://${host}/tickets/42?seat=7` })
  const pagesBefore = browser.context.pages().length
  await payOnThePage()
  await successBox().getByText('Your tickets, ready to print', { exact: true }).waitFor()
  const link = successBox().getByRole('link', { name: `http://${host}/tickets/42?seat=7` })
  assert.is(await link.getAttribute('href'), `http://${host}/tickets/42?seat=7`)
  assert.is(await link.getAttribute('rel'), 'noopener noreferrer')
  assert.is(browser.context.pages().length, pagesBefore, 'no window was opened')
  assert.is(new URL(wallet.url()).pathname, '/wallet/', 'the page stayed where it was')
})

e2e('an aes secret is decrypted with the preimage of the payment and shown with its description', async () => {
  if (!chromiumPath) return
  nextAction = preimage => aesAction('TICKET-7F3A-21', preimage)
  await payOnThePage()
  await successBox().getByText('Your ticket code', { exact: true }).waitFor()
  await successBox().getByText('TICKET-7F3A-21', { exact: true }).waitFor()
})

e2e('one that does not decrypt, or is invalid, shows nothing after a payment that went through; the page goes on', async () => {
  if (!chromiumPath) return
  for (const action of [
    () => aesAction('TICKET-WRONG-KEY', randomBytes(32)),
    (preimage: Buffer) => aesAction('x'.repeat(145), preimage),
    () => ({ tag: 'url', description: 'Click me', url: 'javascript:alert(1)' }),
    () => ({ tag: 'message', message: 'y'.repeat(145) }),
    () => ({ tag: 'confetti' }),
  ]) {
    nextAction = action
    const before = await balance()
    await payOnThePage()
    assert.ok((await balance()) < before, 'paid')
    assert.is(await successBox().isVisible(), false, String(action))
  }
  // A valid one after them is shown again: nothing stuck.
  nextAction = () => ({ tag: 'message', message: 'Still here.' })
  await payOnThePage()
  await successBox().getByText('Still here.', { exact: true }).waitFor()
  assert.equal(pageErrors, [])
})

e2e.run()
