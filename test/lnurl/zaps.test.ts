// NIP-57 zaps through the wire: a Nostr client builds a zap request, gets the invoice from the LNURL callback
// (URI-encoded, as many clients send it), and after payment finds a kind-9735 receipt on the relay named in the
// request — signed by the app key the payRequest advertised — whether paid over Lightning or internally. A zap
// request none of whose relays the outbound guard lets the receipt reach is refused when it is given.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import type { TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, call, newInvoice, ok, payFromOutside } from '../support/money.js'
import { decodeLnurl, getAdvertised, invoiceSections, startLnurlDaemon } from './lnurl-client.js'

useWebSocketImplementation(WebSocket)

const jwtSecret = 'lnurl-zaps-test-secret-0123456789abcdef'
const test = suite('zaps')
let daemon: TestDaemon
let receiver: TestAppUser
let payer: { userToken: string; userId: string; identifier: string }
let relayUrl: string
let relay: Relay
let payRequest: any
const sender = generateSecretKey()
const recipientKey = getPublicKey(generateSecretKey())
const zappedNote = 'e'.repeat(64)

test.before(async () => {
  daemon = await startLnurlDaemon(jwtSecret)
  relayUrl = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  relay = await Relay.connect(relayUrl)
  receiver = await createAppWithUser(daemon, { jwtSecret, identifier: 'zapped' })
  payer = await addAppUser(daemon, { appToken: receiver.appToken, appId: receiver.appId, jwtSecret, identifier: 'zapper' })
  await payFromOutside(daemon, await newInvoice(daemon, payer.userToken, 10_000))
  const link = await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: { authorization: receiver.userToken } })
  payRequest = await getAdvertised(daemon, decodeLnurl(link.json.lnurl))
})
test.after(async () => {
  relay?.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

function zapRequest(amountMsat: number, tags: string[][] = [['p', recipientKey], ['e', zappedNote], ['relays', relayUrl]]): Event {
  return finalizeEvent(
    { kind: 9734, content: 'zap!', created_at: Math.floor(Date.now() / 1000), tags: [...tags, ['amount', String(amountMsat)]] },
    sender,
  )
}

/** The first kind-9735 event on the relay whose bolt11 tag is `pr`, within a few seconds. */
function receiptFor(pr: string): Promise<Event> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.close()
      reject(new Error('no zap receipt within 5 s'))
    }, 5000)
    const sub = relay.subscribe([{ kinds: [9735], '#p': [recipientKey] }], {
      onevent(event) {
        if (!event.tags.some(tag => tag[0] === 'bolt11' && tag[1] === pr)) return
        clearTimeout(timer)
        sub.close()
        resolve(event)
      },
    })
  })
}

const tag = (event: Event, name: string) => event.tags.find(t => t[0] === name)?.[1]

test('a zap paid over Lightning gets a receipt signed by the advertised app key', async () => {
  assert.is(payRequest.allowsNostr, true)
  const request = zapRequest(21_000)
  const json = JSON.stringify(request)
  const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr: encodeURIComponent(json) })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  assert.is(invoiceSections(answer.pr).description_hash, bytesToHex(sha256(new TextEncoder().encode(json))))

  const receipt = receiptFor(answer.pr)
  await payFromOutside(daemon, answer.pr)
  const event = await receipt
  assert.ok(verifyEvent(event))
  assert.is(event.kind, 9735)
  assert.is(event.pubkey, payRequest.nostrPubkey)
  assert.is(event.content, '')
  assert.is(tag(event, 'p'), recipientKey)
  assert.is(tag(event, 'P'), request.pubkey)
  assert.is(tag(event, 'e'), zappedNote)
  assert.is(tag(event, 'description'), json)
  const preimage = tag(event, 'preimage')
  assert.match(preimage ?? '', /^[0-9a-f]{64}$/)
  assert.is(bytesToHex(sha256(Buffer.from(preimage!, 'hex'))), invoiceSections(answer.pr).payment_hash)
})

test('a zap paid from another wallet of the daemon also gets its receipt', async () => {
  const request = zapRequest(5_000_000, [['p', recipientKey], ['a', `30023:${recipientKey}:post`], ['k', '30023'], ['relays', relayUrl]])
  const answer = await getAdvertised(daemon, payRequest.callback, { amount: '5000000', nostr: JSON.stringify(request) })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  const receipt = receiptFor(answer.pr)
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: answer.pr, amount: 0 })
  const event = await receipt
  assert.ok(verifyEvent(event))
  assert.is(event.pubkey, payRequest.nostrPubkey)
  assert.is(tag(event, 'a'), `30023:${recipientKey}:post`)
  assert.is(tag(event, 'k'), '30023')
  assert.is(tag(event, 'e'), undefined)
})

test('malformed zap requests are refused before any invoice exists', async () => {
  const refusedWith = async (nostr: string, reason: RegExp) => {
    const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr })
    assert.is(answer.status, 'ERROR', nostr)
    assert.match(answer.reason, reason)
  }
  await refusedWith(JSON.stringify(zapRequest(21_000, [['p', recipientKey], ['p', recipientKey], ['relays', relayUrl]])), /exactly one p/)
  await refusedWith(JSON.stringify(zapRequest(21_000, [['p', recipientKey]])), /relays/)
  await refusedWith(JSON.stringify(zapRequest(22_000)), /amount/)
  await refusedWith(JSON.stringify({ ...zapRequest(21_000), content: 'tampered' }), /signature/)
  await refusedWith(JSON.stringify({ ...zapRequest(21_000), kind: 1 }), /9734/)
  await refusedWith('{not json', /JSON/)
})

test('a zap request naming no relay its receipt could go to is refused when given, with the reason', async () => {
  const refusedWith = async (relays: string[], reason: string) => {
    const nostr = JSON.stringify(zapRequest(21_000, [['p', recipientKey], ['relays', ...relays]]))
    const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr })
    assert.equal(answer, { status: 'ERROR', reason: `zap request names no relay its receipt can be published to: ${reason}` }, relays.join(' '))
  }
  await refusedWith(['ws://10.1.2.3:7000'], 'relay URL points into a private network')
  await refusedWith(['wss://169.254.169.254', 'ws://[::ffff:10.0.0.1]'], 'relay URL points into a private network')
  await refusedWith(['wss://someone:secret@relay.example'], 'relay URL must not carry credentials')
  await refusedWith(['https://relay.example', 'relay.example'], 'none is a ws:// or wss:// URL')
  // Beside a relay it can reach, a refused one is skipped: the zap is taken and its receipt published.
  const nostr = JSON.stringify(zapRequest(21_000, [['p', recipientKey], ['relays', 'ws://10.1.2.3:7000', relayUrl]]))
  const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  const receipt = receiptFor(answer.pr)
  await payFromOutside(daemon, answer.pr)
  assert.ok(verifyEvent(await receipt))
})

test('NewInvoice and AddAppUserInvoice check a zap request and its relays when it is given', async () => {
  const unreachable = JSON.stringify(zapRequest(21_000, [['p', recipientKey], ['relays', 'wss://192.168.1.20']]))
  const reason = 'zap request names no relay its receipt can be published to: relay URL points into a private network'
  const own = await call(daemon, '/api/user/invoice/new', receiver.userToken, { amountSats: 21, memo: 'zap', zap: unreachable })
  assert.equal(own, { status: 'ERROR', reason })
  const forUser = await call(daemon, '/api/app/user/add/invoice', receiver.appToken, {
    receiver_identifier: receiver.identifier, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: 21, memo: 'zap', zap: unreachable },
  })
  assert.equal(forUser, { status: 'ERROR', reason })
  // As upstream checks it (NIP-57): a zap request that is no signed kind 9734 is refused too.
  assert.match((await call(daemon, '/api/user/invoice/new', receiver.userToken, { amountSats: 21, memo: 'zap', zap: '{not json' })).reason, /JSON/)
  const wrongAmount = JSON.stringify(zapRequest(22_000))
  assert.match((await call(daemon, '/api/user/invoice/new', receiver.userToken, { amountSats: 21, memo: 'zap', zap: wrongAmount })).reason, /amount/)
  // Naming the service relay, it is taken.
  const fine = JSON.stringify(zapRequest(21_000))
  assert.is((await call(daemon, '/api/user/invoice/new', receiver.userToken, { amountSats: 21, memo: 'zap', zap: fine })).status, 'OK')
})

test.run()
