// LNURL-withdraw (LUD-03) through the wire, the way a wallet uses a withdraw link: decode it, read the
// withdrawRequest, present an invoice to the callback. The link pays once: a second use fails, and of two
// concurrent uses exactly one is paid.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, newInvoice, payFromOutside } from '../support/money.js'
import { decodeLnurl, getAdvertised, publicUrl, startLnurlDaemon } from './lnurl-client.js'

const jwtSecret = 'lnurl-withdraw-test-secret-0123456789ab'
const test = suite('lnurl-withdraw')
let daemon: TestDaemon
let owner: TestAppUser
let wallet: { userToken: string; userId: string; identifier: string }

test.before(async () => {
  daemon = await startLnurlDaemon(jwtSecret)
  owner = await createAppWithUser(daemon, { jwtSecret, identifier: 'owner' })
  // The "wallet" scanning the link is another user of the daemon: its invoices are paid internally.
  wallet = await addAppUser(daemon, { appToken: owner.appToken, appId: owner.appId, jwtSecret, identifier: 'scanner' })
  await payFromOutside(daemon, await newInvoice(daemon, owner.userToken, 20_000))
})
test.after(async () => {
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

const withdrawLink = async () => {
  const reply = await daemon.request('GET', '/api/user/lnurl_withdraw/link', { headers: { authorization: owner.userToken } })
  assert.is(reply.json?.status, 'OK', reply.text)
  return reply.json as { lnurl: string; k1: string }
}
const balances = async () => ({
  owner: await balanceOf(daemon, owner.appToken, 'owner'),
  scanner: await balanceOf(daemon, owner.appToken, 'scanner'),
})

test('a withdraw link pays the presented invoice once; the second use fails', async () => {
  const link = await withdrawLink()
  const infoUrl = decodeLnurl(link.lnurl)
  assert.is(infoUrl, `${publicUrl}/api/guest/lnurl_withdraw/info?k1=${link.k1}`)
  const info = await getAdvertised(daemon, infoUrl)
  assert.is(info.tag, 'withdrawRequest')
  assert.is(info.k1, link.k1)
  assert.is(info.minWithdrawable, 1000)
  // 20,000 sats less the worst-case service fee (60 bps, floor 10): floor(20000 / 1.006) = 19880 → 19880 sats.
  assert.is(info.maxWithdrawable, 19_880_000)

  const before = await balances()
  const first = await getAdvertised(daemon, info.callback, { k1: info.k1, pr: await newInvoice(daemon, wallet.userToken, 3000) })
  assert.equal(first, { status: 'OK' })
  const after = await balances()
  assert.is(after.scanner, before.scanner + 3000)
  assert.ok(after.owner <= before.owner - 3000, 'the owner paid the amount (plus any fee)')

  const second = await getAdvertised(daemon, info.callback, { k1: info.k1, pr: await newInvoice(daemon, wallet.userToken, 1000) })
  assert.is(second.status, 'ERROR')
  assert.match(second.reason, /already used/)
  const again = await getAdvertised(daemon, infoUrl)
  assert.is(again.status, 'ERROR', 'a used link has no withdrawRequest any more')
  assert.equal(await balances(), after)
})

test('concurrent uses of one link: exactly one is paid', async () => {
  const link = await withdrawLink()
  const info = await getAdvertised(daemon, decodeLnurl(link.lnurl))
  const invoices = await Promise.all(Array.from({ length: 8 }, () => newInvoice(daemon, wallet.userToken, 200)))
  const before = await balances()
  const answers = await Promise.all(invoices.map(pr => getAdvertised(daemon, info.callback, { k1: link.k1, pr })))
  assert.is(answers.filter(a => a.status === 'OK').length, 1, JSON.stringify(answers))
  assert.is((await balances()).scanner, before.scanner + 200)
})

test('an invoice above the maximum is refused and leaves the link usable', async () => {
  const link = await withdrawLink()
  const info = await getAdvertised(daemon, decodeLnurl(link.lnurl))
  const tooMuch = await newInvoice(daemon, wallet.userToken, Math.floor(info.maxWithdrawable / 1000) + 1)
  const refused = await getAdvertised(daemon, info.callback, { k1: link.k1, pr: tooMuch })
  assert.is(refused.status, 'ERROR')
  assert.match(refused.reason, /between/)
  const noise = await getAdvertised(daemon, info.callback, { k1: link.k1, pr: 'lnbc1notaninvoice' })
  assert.is(noise.status, 'ERROR')
  const paid = await getAdvertised(daemon, info.callback, { k1: link.k1, pr: await newInvoice(daemon, wallet.userToken, 100) })
  assert.equal(paid, { status: 'OK' })
})

test('an unknown key is refused', async () => {
  const reply = await getAdvertised(daemon, `${publicUrl}/api/guest/lnurl_withdraw/info?k1=${'cd'.repeat(31)}`)
  assert.is(reply.status, 'ERROR')
})

test.run()
