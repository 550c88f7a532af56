// LNURL-pay checked by a client we did not write: the `lnurl-pay` package (dolcalmi/lnurl-pay, used by wallets)
// resolves a relaypay lnurl and a Lightning address, asks the callback for an invoice and, with
// `validateInvoice`, refuses any invoice whose description hash is not sha256 of the advertised metadata or whose
// amount is not the one asked for (LUD-06). The invoices are then paid from another wallet of the daemon.
//
// Two concessions to a loopback test, neither of which touches the protocol steps (those stay the package's):
// - The package only accepts a Lightning address whose domain is a host name with a letter TLD (its address
//   regex rejects `name@127.0.0.1:port`), so the daemon's public URL is `http://relaypay.localhost` — loopback by
//   RFC 6761, so `[lnurl] allow_loopback` is still what enables LNURL — and nothing ever resolves that name.
// - The package turns an address into an `https://` URL, and the daemon serves plain http on a random port, so
//   the `fetchGet` below (the package's documented custom-fetch hook) sends each request to the test daemon's
//   real address, keeping the path and query the package built. Like the package's own fetcher, it throws on an
//   `{status: "ERROR"}` answer.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { requestInvoice, requestPayServiceParams, utils, type FetcGetArgs } from 'lnurl-pay'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, newInvoice, ok, payFromOutside } from '../support/money.js'

const jwtSecret = 'lnurl-pay-client-test-secret-0123456789'
const publicHost = 'relaypay.localhost'
const config = `[http]\npublic_url = "http://${publicHost}"\n[lnurl]\nallow_loopback = true\n[auth]\njwt_secret = "${jwtSecret}"\n`

const test = suite('lnurl-pay (the npm client) against relaypay')
let daemon: TestDaemon
let receiver: TestAppUser
let payer: { userToken: string }

/** The package's fetch hook, pointed at the test daemon; anything but our public host is refused. */
function daemonFetch(tamper: (body: any) => any = body => body) {
  return async ({ url, params }: FetcGetArgs): Promise<any> => {
    const advertised = new URL(url)
    if (advertised.hostname !== publicHost) throw new Error(`the package asked for a foreign host: ${url}`)
    const target = new URL(daemon.url + advertised.pathname + advertised.search)
    for (const [name, value] of Object.entries(params ?? {})) target.searchParams.set(name, String(value))
    const body: any = await (await fetch(target)).json()
    if (body.status === 'ERROR') throw new Error(String(body.reason))
    return tamper(body)
  }
}

test.before(async () => {
  daemon = await startDaemon({ config })
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

/** Pays `invoice` from the payer's wallet and returns how much the receiver's balance rose, in sats. */
async function payAndMeasure(invoice: string): Promise<number> {
  const before = await balanceOf(daemon, receiver.appToken, 'receiver')
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  return (await balanceOf(daemon, receiver.appToken, 'receiver')) - before
}

test('an lnurl resolves, yields an invoice committing to its metadata, and is paid', async () => {
  const reply = await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: { authorization: receiver.userToken } })
  assert.is(reply.json?.status, 'OK', reply.text)
  const lnurl: string = reply.json.lnurl
  assert.ok(utils.isLnurl(lnurl), `the package does not recognise ${lnurl}`)

  const params = await requestPayServiceParams({ lnUrlOrAddress: lnurl, fetchGet: daemonFetch() })
  assert.is(params.description, 'LNURL via relaypay')
  assert.is(params.min, 10)
  assert.ok(params.max >= 21)
  assert.is(params.domain, publicHost)

  const paid = await requestInvoice({ lnUrlOrAddress: lnurl, tokens: utils.toSats(21), validateInvoice: true, fetchGet: daemonFetch() })
  assert.ok(paid.hasValidDescriptionHash, 'the invoice does not commit to the metadata')
  assert.ok(paid.hasValidAmount)
  assert.is(paid.params.metadataHash, params.metadataHash)
  assert.is(await payAndMeasure(paid.invoice), 21)
})

test('a claimed lightning address resolves, takes a comment, and its invoice is paid', async () => {
  const claimed = await ok(daemon, '/api/user/lnurl/address', receiver.userToken, { name: 'alice' })
  assert.is(claimed.address, `alice@${publicHost}`)
  assert.ok(utils.isLightningAddress(claimed.address))

  const params = await requestPayServiceParams({ lnUrlOrAddress: claimed.address, fetchGet: daemonFetch() })
  assert.is(params.identifier, claimed.address)
  assert.is(params.commentAllowed, 144)

  const paid = await requestInvoice({
    lnUrlOrAddress: claimed.address, tokens: utils.toSats(5000), comment: 'thanks for lunch', validateInvoice: true, fetchGet: daemonFetch(),
  })
  assert.ok(paid.hasValidDescriptionHash, 'the invoice does not commit to the metadata')
  assert.ok(paid.hasValidAmount)
  assert.is(await payAndMeasure(paid.invoice), 5000)

  // The package enforces the advertised comment limit before calling out; the daemon refuses it too.
  const tooLong = requestInvoice({ lnUrlOrAddress: claimed.address, tokens: utils.toSats(5000), comment: 'x'.repeat(145), fetchGet: daemonFetch() })
  await tooLong.then(() => assert.unreachable('a 145-character comment was accepted'), err => assert.match(String(err), /144 characters/))
})

test('the package\'s check bites: metadata altered in transit makes the invoice fail validation', async () => {
  // One changed character in the advertised metadata: the daemon's invoice still commits to the real metadata,
  // so the hashes differ and the package must refuse — this is what makes the passes above mean something.
  const altered = daemonFetch(body => (body.tag === 'payRequest' ? { ...body, metadata: body.metadata.replace('relaypay', 'relaypaY') } : body))
  const attempt = requestInvoice({ lnUrlOrAddress: `alice@${publicHost}`, tokens: utils.toSats(21), validateInvoice: true, fetchGet: altered })
  await attempt.then(() => assert.unreachable('an invoice not committing to the metadata was accepted'),
    err => assert.match(String(err), /description hash/))
  // An unknown address is an error from the daemon that the package passes on.
  const unknown = requestPayServiceParams({ lnUrlOrAddress: `nobody@${publicHost}`, fetchGet: daemonFetch() })
  await unknown.then(() => assert.unreachable('an unknown address resolved'), err => assert.match(String(err), /no such lightning address/))
})

test.run()
