// The customer ordering page: its markup as served (self-contained, the menu tree, escaped owner text), and a
// customer's visit in headless Chromium: browse, pick modifiers, fill the cart, order, see the invoice as a QR
// code that a QR reader decodes to the invoice, and watch the order turn paid without reloading.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { buildMenu, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'
import { findChromium, openHeadless } from './headless-chromium.js'
import { until } from '../../support/until.js'

const page = suite('the customer ordering page')
let rd: RestaurantDaemon
let owner: TestWallet
let menu: Awaited<ReturnType<typeof buildMenu>>

page.before(async () => {
  rd = await startRestaurantDaemon()
  owner = await rd.wallet()
  menu = await buildMenu(rd, owner)
})
page.after(async () => {
  await rd?.stop()
})

page('is one self-contained HTML document with the menu tree', async () => {
  const res = await rd.daemon.request('GET', `/restaurant/r/${menu.slug}`)
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/)
  // The console's headers: a strict policy (the one inline script and style by their hashes), no framing, no sniffing.
  const policy = res.headers.get('content-security-policy') ?? ''
  assert.match(policy, /default-src 'none'/)
  assert.match(policy, /script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/)
  assert.match(policy, /style-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/)
  assert.match(policy, /frame-ancestors 'none'/)
  assert.is(res.headers.get('x-frame-options'), 'DENY')
  assert.is(res.headers.get('x-content-type-options'), 'nosniff')
  const html = res.text
  assert.match(html, /^<!doctype html>/)
  assert.match(html, /<title>The Diner · order<\/title>/)
  // No external assets: no linked stylesheets, no script sources, no remote URLs fetched.
  assert.not.match(html, /<link\b/i)
  assert.not.match(html, /<script[^>]+src=/i)
  assert.not.match(html, /(src|href)="(https?:)?\/\//i)
  // The tree nests: Burgers inside Mains inside Food, with heading levels following depth.
  const food = html.indexOf(`id="node-${menu.food.id}"`)
  const mains = html.indexOf(`id="node-${menu.mains.id}"`)
  const burgers = html.indexOf(`id="node-${menu.burgers.id}"`)
  const drinks = html.indexOf(`id="node-${menu.drinks.id}"`)
  assert.ok(food >= 0 && food < mains && mains < burgers && burgers < drinks)
  assert.match(html, /<h2>Food<\/h2>[\s\S]*<h3>Mains<\/h3>[\s\S]*<h4>Burgers<\/h4>/)
  assert.match(html, new RegExp(`data-add="${menu.burger.id}"`))
  assert.match(html, /<span class="price">2000 sats<\/span>/)
  assert.match(html, /Extras · Size/)
  const data = JSON.parse(/<script type="application\/json" id="menu-data">([\s\S]*?)<\/script>/.exec(html)![1]!)
  assert.is(data.restaurant.id, menu.id)
  assert.not.ok('wallet' in data.restaurant)
  assert.is(data.apiBase, '/restaurant/api/v1')
  // The short address, without `/r/`, serves the same page.
  const short = await rd.daemon.request('GET', `/restaurant/${menu.slug}`)
  assert.is(short.status, 200)
  assert.match(short.text, /<title>The Diner · order<\/title>/)
})

page('owner text is escaped; sold-out items cannot be added; inactive items are not shown', async () => {
  const evil = '<img src=x onerror=alert(1)></script>'
  const made = await rd.api('POST', '/menu_items', {
    key: owner.adminKey,
    body: { restaurant_id: menu.id, node_id: menu.drinks.id, name: evil, description: '"quoted" & <b>bold</b>', price: '1' },
  })
  assert.is(made.status, 201, made.text)
  await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, node_id: menu.drinks.id, name: 'Lemonade', price: '400', sold_out: true } })
  await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, node_id: menu.drinks.id, name: 'Retired tea', price: '300', active: false } })
  const html = (await rd.daemon.request('GET', `/restaurant/r/${menu.slug}`)).text
  assert.not.ok(html.includes(evil))
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;'))
  assert.ok(html.includes('&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;'))
  assert.ok(html.includes('\\u003cimg src=x onerror=alert(1)>\\u003c/script>'), 'escaped inside the JSON script too')
  assert.match(html, /<strong class="item-name">Lemonade<\/strong>[\s\S]*?<span class="unavailable">Sold out<\/span>/)
  assert.not.ok(html.includes('Retired tea'))
  await rd.api('DELETE', `/menu_items/${made.json.id}`, { key: owner.adminKey })
})

page('a customer orders in Chromium, pays by QR code and sees the order turn paid', async () => {
  const chromium = findChromium()
  if (!chromium) {
    console.log('  skipped: Chromium is not installed (apt-get install chromium); the browser visit was not tested')
    return
  }
  const browser = await openHeadless(chromium)
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-order-page-'))
  try {
    await browser.navigate(`${rd.daemon.url}/restaurant/${menu.slug}`)
    assert.is(await browser.evaluate('document.title'), 'The Diner · order')
    assert.is(await browser.evaluate(`document.querySelector('#node-${menu.burgers.id}').closest('#node-${menu.food.id}') !== null`), true)

    // A cola straight into the cart; the sats figure comes from the server's quote.
    await browser.evaluate(`document.querySelector('[data-add="${menu.cola.id}"]').click()`)
    await browser.waitFor(`document.getElementById('cart-sats').textContent === '(500 sats)'`, 'the quote for a cola')
    assert.is(await browser.evaluate(`document.getElementById('cart-total').textContent`), '500 sats')

    // A burger needs a size: the dialog refuses until one is chosen.
    await browser.evaluate(`document.querySelector('[data-add="${menu.burger.id}"]').click()`)
    assert.is(await browser.evaluate(`document.getElementById('options').open`), true)
    await browser.evaluate(`document.getElementById('options-add').click()`)
    assert.is(await browser.evaluate(`document.getElementById('options-error').textContent`), 'Choose 1 of Size.')
    await browser.evaluate(`document.querySelector('input[value="${menu.double.id}"]').click()`)
    await browser.evaluate(`document.querySelector('input[value="${menu.bacon.id}"]').click()`)
    await browser.evaluate(`document.getElementById('options-quantity').value = '2'`)
    await browser.evaluate(`document.getElementById('options-add').click()`)
    await browser.waitFor(`document.querySelectorAll('#cart-lines li').length === 2`, 'two cart lines')
    // (2000 + 1000 + 300) × 2 + 500
    await browser.waitFor(`document.getElementById('cart-sats').textContent === '(7,100 sats)'`, 'the quote for the cart')
    assert.is(await browser.evaluate(`document.getElementById('cart-total').textContent`), '7100 sats')
    assert.is(await browser.evaluate(`document.querySelector('#cart-lines li:nth-child(2) .line-mods').textContent`), 'Bacon, Double')

    await browser.evaluate(`document.getElementById('table').value = '7'`)
    await browser.evaluate(`document.getElementById('place-order').click()`)
    await browser.waitFor(`!document.getElementById('invoice').hidden && document.querySelector('#qr svg')`, 'the invoice')
    const bolt11 = await browser.evaluate<string>(`document.getElementById('bolt11').value`)
    assert.match(bolt11, /^lnbc/)
    assert.is(await browser.evaluate(`document.getElementById('order-status').textContent`), 'Waiting for payment…')
    const orderId = await browser.evaluate<string>(`document.getElementById('invoice').dataset.orderId`)
    const order = (await rd.api('GET', `/orders/${orderId}`)).json
    assert.is(order.payment_request, bolt11)
    assert.is(order.table, '7')
    assert.is(order.required_msat, 7_100_000)
    assert.is(await browser.evaluate(`document.getElementById('invoice-amount').textContent`), '7,100 sats')
    // The order number the customer tells the counter, and the time left on the invoice (15 minutes by default).
    assert.is(await browser.evaluate(`document.getElementById('order-number').textContent`), `Order #${orderId.replace(/[-_]/g, '').slice(0, 6).toUpperCase()}`)
    assert.match(await browser.evaluate<string>(`document.getElementById('invoice-expiry').textContent`), /^Expires in 1[45]:\d\d$/)

    // The QR code on screen reads back as the invoice (when a QR reader is installed).
    const shot = path.join(shots, 'invoice.png')
    fs.writeFileSync(shot, await browser.screenshot())
    if (fs.existsSync('/usr/bin/zbarimg')) {
      const read = spawnSync('/usr/bin/zbarimg', ['-q', '--raw', shot], { encoding: 'utf8' })
      assert.is(read.stdout.trim(), `LIGHTNING:${bolt11.toUpperCase()}`)
    } else {
      console.log('  note: zbarimg is not installed (apt-get install zbar-tools); the QR code was not decoded')
    }

    // Paid from outside; the page notices without a reload.
    await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: bolt11, amount: 0 } })
    await browser.waitFor(`document.getElementById('order-status').dataset.status === 'paid'`, 'the page to show the order paid')
    assert.is(await browser.evaluate(`document.getElementById('order-status').textContent`), 'Paid — thank you! The kitchen has your order.')
    fs.writeFileSync(path.join(shots, 'paid.png'), await browser.screenshot())

    assert.is(await browser.evaluate(`document.querySelectorAll('#cart-lines li').length`), 0, 'the cart became the order')
    // Opening the order's address again (its id rides in the fragment) shows it.
    await browser.navigate(`${rd.daemon.url}/restaurant/r/${menu.slug}#order=${orderId}`)
    await browser.waitFor(`document.getElementById('order-status').dataset.status === 'paid'`, 'the resumed order')
    // Nothing the page needs was refused by its security policy (a refusal is a browser error) …
    assert.equal(browser.errors, [])
    // … and the policy is in force: a script planted in the page, as an injection would, does not run.
    await browser.evaluate(`(() => { const s = document.createElement('script'); s.textContent = 'window.planted = 1'; document.body.append(s) })()`)
    await until(() => browser.errors.some(error => /Content Security Policy/.test(error)), "the browser's refusal of the planted script")
    assert.is(await browser.evaluate(`window.planted ?? null`), null)
  } finally {
    await browser.close()
    if (process.env.KEEP_SCREENSHOTS) console.log(`  screenshots in ${shots}`)
    else fs.rmSync(shots, { recursive: true, force: true })
  }
})

page('the invoice counts down, expires, and a fresh invoice replaces it', async () => {
  const chromium = findChromium()
  if (!chromium) return console.log('  skipped: Chromium is not installed; the expiry was not tested')
  const operator = { authorization: `Bearer ${rd.daemon.adminToken}` }
  const shortExpiry = await rd.daemon.request('PUT', '/restaurant/api/v1/settings', { body: { invoice_expiry_seconds: 3 }, headers: operator })
  assert.is(shortExpiry.status, 200, shortExpiry.text)
  const browser = await openHeadless(chromium, { width: 375, height: 700 })
  try {
    await browser.navigate(`${rd.daemon.url}/restaurant/r/${menu.slug}`)
    await browser.evaluate(`document.querySelector('[data-add="${menu.cola.id}"]').click()`)
    await browser.waitFor(`document.getElementById('cart-sats').textContent === '(500 sats)'`, 'the quote')
    await browser.evaluate(`document.getElementById('place-order').click()`)
    await browser.waitFor(`!document.getElementById('invoice').hidden && document.querySelector('#qr svg')`, 'the invoice')
    const first = await browser.evaluate<string>(`document.getElementById('invoice').dataset.orderId`)
    assert.match(await browser.evaluate<string>(`document.getElementById('invoice-expiry').textContent`), /^Expires in 0:0[0-3]$/)
    await browser.waitFor(`document.getElementById('order-status').dataset.status === 'expired'`, 'the expired state', 10_000)
    assert.is(await browser.evaluate(`document.getElementById('qr').hidden`), true, 'no QR code of a dead invoice')
    assert.is(await browser.evaluate(`document.getElementById('fresh-invoice').hidden`), false)
    // The fresh invoice belongs to a new order with the same lines (the short expiry is lifted first).
    await rd.daemon.request('PUT', '/restaurant/api/v1/settings', { body: { invoice_expiry_seconds: 900 }, headers: operator })
    await browser.evaluate(`document.getElementById('fresh-invoice').click()`)
    await browser
      .waitFor(`document.getElementById('invoice').dataset.orderId !== ${JSON.stringify(first)} && document.getElementById('order-status').dataset.status === 'pending'`, 'a fresh invoice', 20_000)
      .catch(async err => {
        // What the page says (a refused order reads "No fresh invoice: …") makes a failure here readable.
        const said = await browser.evaluate<string>(`document.getElementById('order-status').dataset.status + ': ' + document.getElementById('order-status').textContent`)
        throw new Error(`${(err as Error).message}; the page says ${said}; page errors: ${JSON.stringify(browser.errors)}`)
      })
    const second = await browser.evaluate<string>(`document.getElementById('invoice').dataset.orderId`)
    const order = (await rd.api('GET', `/orders/${second}`)).json
    assert.is(order.items[0].item_id, menu.cola.id)
    assert.match(await browser.evaluate<string>(`document.getElementById('invoice-expiry').textContent`), /^Expires in 1[45]:\d\d$/)
    // The server expires it too (its sweep, or the next read), within a second of the page's countdown.
    const deadline = Date.now() + 5000
    while ((await rd.api('GET', `/orders/${first}`)).json.status !== 'expired' && Date.now() < deadline) await new Promise(r => setTimeout(r, 200))
    assert.is((await rd.api('GET', `/orders/${first}`)).json.status, 'expired')
    assert.equal(browser.errors, [])
  } finally {
    await rd.daemon.request('PUT', '/restaurant/api/v1/settings', { body: { invoice_expiry_seconds: 900 }, headers: operator })
    await browser.close()
  }
})

page('on a 375 px phone the cart stays in reach while the menu scrolls, and nothing scrolls sideways', async () => {
  const chromium = findChromium()
  if (!chromium) return console.log('  skipped: Chromium is not installed; the phone layout was not tested')
  const browser = await openHeadless(chromium, { width: 375, height: 640 })
  try {
    await browser.navigate(`${rd.daemon.url}/restaurant/r/${menu.slug}`)
    await browser.evaluate(`document.querySelector('[data-add="${menu.cola.id}"]').click()`)
    await browser.waitFor(`document.getElementById('cart-count').textContent === '1'`, 'one thing in the cart')
    const inView = `(() => { const r = document.getElementById('cart').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0 && r.bottom <= innerHeight + 1 })()`
    for (const y of [0, 200, 400]) {
      await browser.evaluate(`window.scrollTo(0, ${y})`)
      assert.is(await browser.evaluate(inView), true, `the cart is on screen at scroll ${y}: ${await browser.evaluate(`JSON.stringify(document.getElementById('cart').getBoundingClientRect()) + ' ' + innerHeight + ' ' + scrollY`)}`)
    }
    assert.is(await browser.evaluate(`document.documentElement.scrollWidth <= document.documentElement.clientWidth`), true, `sideways scroll: ${await browser.evaluate(`JSON.stringify([...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)))`)}`)
    // The place-order button is reachable without scrolling back down.
    assert.is(await browser.evaluate(`(() => { const r = document.getElementById('place-order').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`), true, `place order on screen: ${await browser.evaluate(`JSON.stringify(document.getElementById('place-order').getBoundingClientRect())`)}`)
    assert.equal(browser.errors, [])
  } finally {
    await browser.close()
  }
})

page('one sat is "1 sat", two are "2 sats": on the menu, in the cart and on the invoice, at 375 px', async () => {
  const chromium = findChromium()
  if (!chromium) return console.log('  skipped: Chromium is not installed; the amounts were not tested')
  const add = async (name: string, price: string) =>
    (await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, node_id: menu.drinks.id, name, price } })).json
  const mint = await add('Mint', '1')
  const gum = await add('Gum', '2')
  const browser = await openHeadless(chromium, { width: 375, height: 700 })
  try {
    const html = (await rd.daemon.request('GET', `/restaurant/r/${menu.slug}`)).text
    assert.match(html, /Mint<\/strong>[\s\S]*?<span class="price">1 sat<\/span>/)
    assert.match(html, /Gum<\/strong>[\s\S]*?<span class="price">2 sats<\/span>/)
    await browser.navigate(`${rd.daemon.url}/restaurant/r/${menu.slug}`)
    await browser.evaluate(`document.querySelector('[data-add="${mint.id}"]').click()`)
    await browser.waitFor(`document.getElementById('cart-sats').textContent === '(1 sat)'`, 'the quote for one sat')
    assert.is(await browser.evaluate(`document.getElementById('cart-total').textContent`), '1 sat')
    await browser.evaluate(`document.getElementById('place-order').click()`)
    await browser.waitFor(`!document.getElementById('invoice').hidden && document.querySelector('#qr svg')`, 'the invoice')
    assert.is(await browser.evaluate(`document.getElementById('invoice-amount').textContent`), '1 sat')

    await browser.navigate(`${rd.daemon.url}/restaurant/r/${menu.slug}`)
    await browser.evaluate(`document.querySelector('[data-add="${gum.id}"]').click()`)
    await browser.waitFor(`document.getElementById('cart-sats').textContent === '(2 sats)'`, 'the quote for two sats')
    assert.is(await browser.evaluate(`document.getElementById('cart-total').textContent`), '2 sats')
    await browser.evaluate(`document.getElementById('place-order').click()`)
    await browser.waitFor(`!document.getElementById('invoice').hidden && document.querySelector('#qr svg')`, 'the invoice')
    assert.is(await browser.evaluate(`document.getElementById('invoice-amount').textContent`), '2 sats')
    assert.equal(browser.errors, [])
  } finally {
    await browser.close()
    for (const item of [mint, gum]) await rd.api('DELETE', `/menu_items/${item.id}`, { key: owner.adminKey })
  }
})

page.run()
