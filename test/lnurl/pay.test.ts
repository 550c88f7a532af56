// LNURL-pay and Lightning addresses through the wire, resolved and paid the way a wallet does: decode the lnurl,
// fetch the payRequest, call the callback with an amount, check the invoice commits to the metadata (LUD-06),
// then pay it from outside (test mode) or from another wallet of the daemon.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, newInvoice, ok, payFromOutside } from '../support/money.js'
import {
  decodeLnurl, getAdvertised, invoiceSections, lnurlDaemonConfig, publicUrl, resolveAddress, startLnurlDaemon,
} from './lnurl-client.js'

const jwtSecret = 'lnurl-pay-test-secret-0123456789abcdef'
const test = suite('lnurl-pay and lightning addresses')
let daemon: TestDaemon
let receiver: TestAppUser
let payer: { userToken: string; userId: string; identifier: string }

const sha256Hex = (text: string) => bytesToHex(sha256(new TextEncoder().encode(text)))

test.before(async () => {
  daemon = await startLnurlDaemon(jwtSecret)
  receiver = await createAppWithUser(daemon, { jwtSecret, identifier: 'receiver' })
  payer = await addAppUser(daemon, { appToken: receiver.appToken, appId: receiver.appId, jwtSecret, identifier: 'payer' })
  await payFromOutside(daemon, await newInvoice(daemon, payer.userToken, 50_000))
})
test.after(async () => {
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

const payLink = async (token: string) => {
  const reply = await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: { authorization: token } })
  assert.is(reply.json?.status, 'OK', reply.text)
  return reply.json as { lnurl: string; k1: string }
}

test('an lnurl resolves to a payRequest whose callback issues an invoice committing to the metadata', async () => {
  const link = await payLink(receiver.userToken)
  assert.match(link.lnurl, /^lnurl1[02-9ac-hj-np-z]+$/)
  assert.is(link.k1.length, 62)
  const infoUrl = decodeLnurl(link.lnurl)
  assert.is(infoUrl, `${publicUrl}/api/guest/lnurl_pay/info?k1=${link.k1}`)
  assert.equal(await payLink(receiver.userToken), link, 'the pay key is persistent')

  const info = await getAdvertised(daemon, infoUrl)
  assert.is(info.tag, 'payRequest')
  assert.is(info.minSendable, 10_000)
  assert.ok(info.maxSendable >= 21_000)
  assert.equal(JSON.parse(info.metadata), [['text/plain', 'LNURL via relaypay']])
  assert.is(info.allowsNostr, true)
  assert.match(info.nostrPubkey, /^[0-9a-f]{64}$/)

  const before = await balanceOf(daemon, receiver.appToken, 'receiver')
  const answer = await getAdvertised(daemon, info.callback, { amount: '21000' })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  assert.equal(answer.routes, [])
  const sections = invoiceSections(answer.pr)
  assert.is(Number((sections.amount as string) ?? 0), 21_000)
  assert.is(sections.description_hash, sha256Hex(info.metadata))
  await payFromOutside(daemon, answer.pr)
  assert.is(await balanceOf(daemon, receiver.appToken, 'receiver'), before + 21)
})

test('the callback refuses fractional sats, amounts out of bounds and unknown keys', async () => {
  const info = await getAdvertised(daemon, decodeLnurl((await payLink(receiver.userToken)).lnurl))
  const fractional = await getAdvertised(daemon, info.callback, { amount: '21500' })
  assert.is(fractional.status, 'ERROR')
  assert.match(fractional.reason, /whole number of sats/)
  const tooSmall = await getAdvertised(daemon, info.callback, { amount: '9000' })
  assert.is(tooSmall.status, 'ERROR')
  assert.match(tooSmall.reason, /between/)
  const notNumber = await getAdvertised(daemon, info.callback, { amount: 'lots' })
  assert.is(notNumber.status, 'ERROR')
  const unknown = await getAdvertised(daemon, `${publicUrl}/api/guest/lnurl_pay/handle?k1=${'ab'.repeat(31)}`, { amount: '21000' })
  assert.is(unknown.status, 'ERROR')
})

test('a claimed lightning address resolves, carries its identifier and is paid from another wallet', async () => {
  const claimed = await ok(daemon, '/api/user/lnurl/address', receiver.userToken, { name: 'Alice.Pay' })
  assert.is(claimed.name, 'alice.pay')
  assert.is(claimed.address, 'alice.pay@127.0.0.1:1')

  const info = await resolveAddress(daemon, claimed.address)
  assert.is(info.tag, 'payRequest')
  assert.equal(JSON.parse(info.metadata), [['text/plain', 'LNURL via relaypay'], ['text/identifier', 'alice.pay@127.0.0.1:1']])
  assert.is(info.commentAllowed, 144)

  const answer = await getAdvertised(daemon, info.callback, { amount: '5000000', comment: 'thanks for lunch' })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  assert.is(invoiceSections(answer.pr).description_hash, sha256Hex(info.metadata))
  const before = await balanceOf(daemon, receiver.appToken, 'receiver')
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: answer.pr, amount: 0 })
  assert.is(await balanceOf(daemon, receiver.appToken, 'receiver'), before + 5000)

  const tooLong = await getAdvertised(daemon, info.callback, { amount: '5000000', comment: 'x'.repeat(145) })
  assert.is(tooLong.status, 'ERROR')
})

test('address names are unique, validated, and a wallet may move to a new one', async () => {
  const taken = await call(daemon, '/api/user/lnurl/address', payer.userToken, { name: 'alice.pay' })
  assert.is(taken.status, 'ERROR')
  assert.match(taken.reason, /already taken/)
  for (const name of ['', 'has space', 'a'.repeat(65), 'ümlaut', 'ab'.repeat(32)]) {
    const bad = await call(daemon, '/api/user/lnurl/address', payer.userToken, { name })
    assert.is(bad.status, 'ERROR', `name ${JSON.stringify(name)} was accepted`)
  }
  await ok(daemon, '/api/user/lnurl/address', receiver.userToken, { name: 'alice2' })
  const old = await resolveAddress(daemon, 'alice.pay@127.0.0.1:1')
  assert.is(old.status, 'ERROR', 'the old name is released')
  assert.is((await resolveAddress(daemon, 'alice2@127.0.0.1:1')).tag, 'payRequest')
  await ok(daemon, '/api/user/lnurl/address', payer.userToken, { name: 'alice.pay' })
})

test('an app reads its user\'s payRequest, with the callback base overridden', async () => {
  const info = await ok(daemon, '/api/app/user/lnurl/pay/info', receiver.appToken, {
    user_identifier: 'receiver',
    base_url_override: 'https://bridge.example/lnurl',
  })
  const { k1 } = await payLink(receiver.userToken)
  assert.is(info.callback, `https://bridge.example/lnurl?k1=${k1}`)
  const other = await createAppWithUser(daemon, { jwtSecret, identifier: 'stranger' })
  const foreign = await call(daemon, '/api/app/user/lnurl/pay/info', other.appToken, { user_identifier: 'receiver', base_url_override: '' })
  assert.is(foreign.status, 'ERROR', 'an app cannot read another app\'s user')
})

test.run()

const disabled = suite('lnurl on a loopback service url')
let loopback: TestDaemon
disabled.before(async () => {
  loopback = await startDaemon({ config: lnurlDaemonConfig(jwtSecret, { allowLoopback: false }) })
})
disabled.after(async () => {
  await loopback?.stop()
})

disabled('every LNURL feature answers upstream\'s "not enabled" error, which names the switch', async () => {
  const user = await createAppWithUser(loopback, { jwtSecret, identifier: 'loopback-user' })
  const expected =
    'Lnurl not enabled. Set [http] public_url (env RELAYPAY_HTTP_PUBLIC_URL) to a URL wallets can reach, not loopback (upstream calls it SERVICE_URL)'
  for (const path of ['/api/user/lnurl_pay/link', '/api/user/lnurl_withdraw/link']) {
    const reply = await loopback.request('GET', path, { headers: { authorization: user.userToken } })
    assert.equal(reply.json, { status: 'ERROR', reason: expected }, path)
  }
  const address = await call(loopback, '/api/user/lnurl/address', user.userToken, { name: 'bob' })
  assert.is(address.reason, expected)
  const info = await loopback.request('GET', `/api/guest/lnurl_pay/info?k1=${'ab'.repeat(31)}`)
  assert.is(info.json?.reason, expected)
})

disabled.run()
