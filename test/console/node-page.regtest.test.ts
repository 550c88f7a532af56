// The console's node page on a real LND: the daemon on node A of a regtest network (test/support/regtest/), the page
// in Debian's headless Chromium. What it shows is checked against lncli on A (its key and addresses, its on-chain
// balance, its channels' two sides); a fresh address from the page receives B's coins; B is added as a peer from the
// page, a channel to it opened and, after a dismissed question that leaves it open, closed, its funds back on-chain;
// a second channel to B is force closed from the page. A's channel to R names R by its alias from A's graph.
// Runs on the newest LND version of the run only.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { Locator, Page } from 'playwright-core'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { channelSats, onRegtestNetworks, type Regtest } from '../support/regtest/index.js'
import { findChromium, launchBrowser, signInToConsole, type Browser } from '../support/browser.js'
import { screenshotForDocs } from '../support/docs-screenshots.js'

const chromiumPath = findChromium()
const sats = (n: number) => `${n.toLocaleString('en')} sats`

function nodePage(net: Regtest): void {
  const test = suite(`the console's node page on a real LND ${net.lndVersion}`)
  let daemon: TestDaemon
  let browser: Browser
  let page: Page
  const asked: string[] = []
  const requested: string[] = []
  let answer: 'accept' | 'dismiss' = 'accept'
  test.before(async () => {
    if (!chromiumPath) return
    daemon = await startDaemon({ config: net.nodeConfig(), mock: false })
    browser = await launchBrowser(chromiumPath)
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url })
    page = await browser.context.newPage()
    page.setDefaultTimeout(30_000)
    page.on('dialog', dialog => {
      asked.push(dialog.message())
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss())
    })
    page.on('request', request => requested.push(new URL(request.url()).pathname))
    await signInToConsole(page, daemon)
  })
  test.after(async () => {
    await browser?.close()
    await daemon?.stop()
  })

  /** Opens the page and waits until the node's figures are read (each shows '…' until then). */
  const openNode = async () => {
    await page.goto(`${daemon.url}/console/#/node`)
    await page.getByRole('heading', { name: 'Node' }).waitFor()
    await page.getByTestId('chain-balance').filter({ hasNotText: '…' }).waitFor()
    for (const table of ['Peers', 'Channels']) await page.getByRole('region', { name: table }).getByText('Loading…').waitFor({ state: 'hidden' })
  }
  const walletBalance = async () => Number((await net.lncli<{ confirmed_balance: string }>('A', ['walletbalance'])).confirmed_balance)
  /** Asks the page to read the node again (it reads it once when opened), until `testId` shows `text`. */
  const shows = (testId: string, text: string) =>
    net.waitFor(`${testId} to show ${text}`, async () => {
      await page.getByRole('button', { name: 'Refresh' }).click()
      return (await page.getByTestId(testId).textContent()) === text ? true : undefined
    }, 60_000)

  /** Opens a channel of `amount` sats to B from the page, mines it in, and answers its row once the page shows it active. */
  const openToB = async (amount: number) => {
    await page.getByLabel('To peer').selectOption(net.node('B').pubkey)
    await page.getByLabel('Channel amount (sats)').fill(String(amount))
    await page.getByLabel("Fee rate (sat/vB, 0: the node's estimate)").fill('2')
    await page.getByRole('button', { name: 'Open channel' }).click()
    await page.getByText(new RegExp(`^A channel of ${sats(amount)} to .* is opening\\.$`)).waitFor()
    await net.mine(6)
    const row = page.getByRole('region', { name: 'Channels' }).getByRole('row').filter({ hasText: sats(amount) })
    await net.waitFor(`the channel of ${sats(amount)} to B active on the page`, async () => {
      await page.getByRole('button', { name: 'Refresh' }).click()
      return (await row.count()) === 1 && (await row.getByRole('cell', { name: 'active', exact: true }).count()) === 1 ? true : undefined
    }, 60_000)
    return row
  }
  /** Clicks `button` and dismisses the question it asks; answers the question. */
  const dismissed = async (button: Locator) => {
    const askedBefore = asked.length
    answer = 'dismiss'
    try {
      await button.click()
      await net.waitFor('the question', async () => (asked.length > askedBefore ? true : undefined))
      await page.evaluate('0')
    } finally {
      answer = 'accept'
    }
    return asked.at(-1)!
  }

  test("A's key or pubkey@host with its copy button, and its funds and liquidity as lncli reports them", async () => {
    if (!chromiumPath) return console.log('  skipped: Chromium is not installed')
    const info = await net.lncli<{ identity_pubkey: string; uris?: string[] }>('A', ['getinfo'])
    await openNode()
    assert.is(await page.getByTestId('embedded-note').count(), 0, 'no word of a simulation on LND')
    const uris = info.uris ?? []
    if (uris.length > 0) {
      assert.equal(await page.getByTestId('node-uri').allTextContents(), uris)
      await page.getByRole('button', { name: /^Copy the node address/ }).first().click()
      assert.is(await page.evaluate<string>('navigator.clipboard.readText()'), uris[0])
    } else {
      assert.is(await page.getByTestId('node-pubkey').textContent(), info.identity_pubkey)
      await page.getByTestId('no-uri').waitFor()
    }
    const balance = await net.lncli<{ local_balance: { sat: string }; remote_balance: { sat: string } }>('A', ['channelbalance'])
    await page.getByTestId('outbound').filter({ hasText: new RegExp(`^${sats(Number(balance.local_balance.sat))}$`) }).waitFor()
    await page.getByTestId('inbound').filter({ hasText: new RegExp(`^${sats(Number(balance.remote_balance.sat))}$`) }).waitFor()
    assert.ok(Number(balance.remote_balance.sat) > 0, 'R pushed A some: inbound is not 0')
    assert.is(await page.getByTestId('chain-balance').textContent(), sats(await walletBalance()))
    // A's channel to R, with both sides, its peer named by the alias R announced (A's graph has it: the network
    // waited for both edges), the full key a click away.
    const r = net.node('R').pubkey
    await page.getByRole('region', { name: 'Peers' }).getByTitle(r).waitFor()
    const toR = page.getByRole('region', { name: 'Channels' }).getByRole('row').filter({ hasText: sats(channelSats) })
    await toR.getByTestId('peer-alias').filter({ hasText: /^R$/ }).waitFor()
    assert.is(await toR.getByTestId('peer-alias').getAttribute('title'), r)
    await toR.getByRole('button', { name: 'Copy the key of R' }).click()
    assert.is(await page.evaluate<string>('navigator.clipboard.readText()'), r)
    await page.getByRole('region', { name: 'Peers' }).getByTestId('peer-alias').filter({ hasText: /^R$/ }).waitFor()
  })

  test("a fresh address from the page is A's: B's coins sent to it arrive in A's wallet, and the page shows its balance", async () => {
    if (!chromiumPath) return
    await openNode()
    await page.getByRole('button', { name: 'New on-chain address' }).click()
    const address = (await page.getByTestId('node-address').locator('.mono').textContent())!
    assert.match(address, /^bcrt1q/)
    await page.getByRole('button', { name: 'Copy the on-chain address' }).click()
    assert.is(await page.evaluate<string>('navigator.clipboard.readText()'), address)
    const { txid } = await net.lncli<{ txid: string }>('B', ['sendcoins', `--addr=${address}`, '--amt=50000', '--sat_per_vbyte=2'])
    await net.mine(1)
    // A mines the network's blocks, so its balance also grows by the coinbases that mature: the coins are found by
    // their transaction in A's wallet, and the page's balance is compared with A's own after it.
    type ChainTx = { tx_hash: string; num_confirmations: number; output_details?: { address: string; amount: string; is_our_address: boolean }[] }
    await net.waitFor("B's coins confirmed in A's wallet", async () => {
      const { transactions } = await net.lncli<{ transactions: ChainTx[] }>('A', ['listchaintxns'])
      const tx = transactions.find(t => t.tx_hash === txid)
      const output = tx?.output_details?.find(o => o.address === address)
      return tx && tx.num_confirmations >= 1 && output?.is_our_address && Number(output.amount) === 50_000 ? true : undefined
    })
    await shows('chain-balance', sats(await walletBalance()))
  })

  test('B added as a peer, a channel to it opened; Close dismissed leaves it open, accepted closes it and its funds return on-chain', async () => {
    if (!chromiumPath) return
    const b = net.node('B')
    await openNode()
    await page.getByLabel('Peer (pubkey@host:port)').fill(`${b.pubkey}@${b.p2p}`)
    await page.getByRole('button', { name: 'Add peer' }).click()
    await page.getByText(/^Connected to /).waitFor()
    const row = await openToB(200_000)
    const toB = async () =>
      (await net.lncli<{ channels: { remote_pubkey: string; channel_point: string }[] }>('A', ['listchannels'])).channels.filter(c => c.remote_pubkey === b.pubkey)
    const [channel] = await toB()

    const question = await dismissed(row.getByRole('button', { name: /^Close channel / }))
    assert.ok(question.startsWith(`Close the channel ${channel!.channel_point} (200,000 sats) with `), question)
    assert.match(question, /cooperatively\? Both nodes sign the closing transaction: our side, [\d,]+ sats, returns to the node's on-chain wallet/)
    assert.not.ok(requested.includes('/api/admin/channel/close'), 'nothing sent')
    assert.is((await toB()).length, 1, 'dismissed: the channel stays open')

    await row.getByRole('button', { name: /^Close channel / }).click()
    await page.getByText(/^Channel .* closing in transaction /).waitFor()
    await net.mine(6)
    await net.waitFor('the channel gone', async () => ((await toB()).length === 0 ? true : undefined), 60_000)
    type Closed = { channel_point: string; closing_tx_hash: string; settled_balance: string }
    const closed = await net.waitFor('the channel listed closed', async () =>
      (await net.lncli<{ channels: Closed[] }>('A', ['closedchannels'])).channels.find(c => c.channel_point === channel!.channel_point), 60_000)
    assert.ok(Number(closed.settled_balance) > 180_000, `our side came back on-chain: ${closed.settled_balance}`)
    await shows('chain-balance', sats(await walletBalance()))
    await row.waitFor({ state: 'detached' })
  })

  test('a second channel to B force closed from the page: the question names the CSV delay and the fees; dismissed nothing is sent, accepted LND force closes it', async () => {
    if (!chromiumPath) return
    const b = net.node('B')
    await openNode()
    const row = await openToB(150_000)
    // The page as the README shows it, loaded afresh (no message, address or "Copied" left from the steps before):
    // A's two peers and its two channels, to R and to B, with the form that opens one.
    await page.reload()
    await openNode()
    await page.getByRole('region', { name: 'Peers' }).getByTitle(b.pubkey).waitFor()
    await row.getByRole('cell', { name: 'active', exact: true }).waitFor()
    await screenshotForDocs(page, 'console-node.png', {
      viewport: { width: 1200, height: 800 },
      region: [page.getByRole('heading', { name: 'Node', level: 1 }), page.locator('section').filter({ has: page.getByRole('region', { name: 'Channels' }) })],
      secrets: [daemon.adminToken],
    })
    type Listed = { remote_pubkey: string; channel_point: string; csv_delay?: number; local_constraints?: { csv_delay?: number } }
    const channel = (await net.lncli<{ channels: Listed[] }>('A', ['listchannels'])).channels.find(c => c.remote_pubkey === b.pubkey)!
    const csv = channel.local_constraints?.csv_delay ?? channel.csv_delay!
    assert.ok(csv > 0, 'LND names the delay on our side')

    const closesBefore = requested.filter(p => p === '/api/admin/channel/close').length
    const question = await dismissed(row.getByRole('button', { name: /^Force close channel / }))
    assert.ok(question.startsWith(`Force close the channel ${channel.channel_point} with `), question)
    assert.ok(question.includes(`stays locked for ${csv} blocks`), question)
    assert.match(question, /on-chain fees/)
    assert.is(requested.filter(p => p === '/api/admin/channel/close').length, closesBefore, 'dismissed: nothing sent')
    assert.ok((await net.lncli<{ channels: Listed[] }>('A', ['listchannels'])).channels.some(c => c.channel_point === channel.channel_point))

    await row.getByRole('button', { name: /^Force close channel / }).click()
    await page.getByText(/^Channel with .* force closing in transaction /).waitFor()
    type Pending = { pending_force_closing_channels?: { channel: { channel_point: string }; blocks_til_maturity: number; limbo_balance: string }[] }
    // Until the commitment transaction confirms, LND lists the channel as waiting to close: a block at each look.
    const forced = await net.waitFor('the channel force closing in LND', async () => {
      const found = (await net.lncli<Pending>('A', ['pendingchannels'])).pending_force_closing_channels?.find(c => c.channel.channel_point === channel.channel_point)
      if (!found) await net.mine(1)
      return found
    }, 60_000)
    assert.ok(Number(forced.limbo_balance) > 0, `our side is in limbo: ${forced.limbo_balance}`)
    assert.ok(forced.blocks_til_maturity > 0, `and locked: ${forced.blocks_til_maturity} blocks to go`)
    await net.waitFor('the channel gone from the page', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click()
      return (await row.count()) === 0 ? true : undefined
    }, 60_000)
  })

  test.run()
}

await onRegtestNetworks('console/node-page.regtest', nodePage)
