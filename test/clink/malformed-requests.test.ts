// A CLINK request that decrypts but is not a JSON object (an array, a string, a number, or text that is not JSON at
// all) is answered on its own kind in that kind's error shape (as upstream answers it: offers
// `{code, error}`, debits and manage `{res: "GFY", code, error}`) instead of silence, so the requester does not
// wait out its own timeout; so is a body the dispatcher will not read (nested too deep). Real signed, NIP-44 v2
// events through the daemon's embedded relay.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile } from '../support/pub-client.js'
import { ClinkClient, tagOf } from './clink-client.js'

const test = suite('malformed CLINK requests')
let daemon: TestDaemon
let client: ClinkClient
let relayUrl: string
let appPubkey: string

test.before(async () => {
  daemon = await startDaemon()
  const { relays, pubkey } = appProfile(daemon.dataDir)
  relayUrl = relays[0]!
  appPubkey = pubkey
  client = await ClinkClient.connect(relays[0]!, pubkey).catch(async err => {
    await daemon.stop()
    throw err
  })
})
test.after(async () => {
  client?.close()
  await daemon?.stop()
})

const answers = {
  21001: { code: 1, error: 'Invalid Offer' },
  21002: { res: 'GFY', code: 6, error: 'Invalid Request' },
  21003: { res: 'GFY', code: 6, error: 'Invalid Request: not a JSON object' },
  21004: { res: 'GFY', code: 6, error: 'Invalid Request' },
} as const

const bodies: { what: string; plaintext: string }[] = [
  { what: 'a JSON array', plaintext: '[{"offer":"x"}]' },
  { what: 'a JSON string', plaintext: '"hello"' },
  { what: 'a JSON number', plaintext: '42' },
  { what: 'text that is not JSON', plaintext: '{"offer": oops' },
]

for (const [kind, expected] of Object.entries(answers)) {
  test(`kind ${kind}: every malformed body is answered with ${JSON.stringify(expected)}`, async () => {
    for (const { what, plaintext } of bodies) {
      // An enrolling key hears three answers a minute: each body from a key of its own.
      const asker = kind === '21004' ? await ClinkClient.connect(relayUrl, appPubkey) : client
      const reply = await asker.ask(Number(kind), undefined, { plaintext })
      if (asker !== client) asker.close()
      assert.equal(reply.payload, expected, what)
      assert.is(reply.event.kind, Number(kind), what)
      assert.is(tagOf(reply.event, 'p'), asker.pubkey, what)
    }
  })
}

// The dispatcher reads no input nested deeper than 32 levels (src/bus/input-depth.ts): such a request never reaches
// the room, and the transport answers it in the kind's invalid-request shape itself.
const deep = (levels: number): unknown => (levels === 0 ? 'x' : { offer: deep(levels - 1) })
const invalidShapes = {
  21001: { code: 1, error: 'Invalid Offer' },
  21002: { res: 'GFY', code: 6, error: 'Invalid Request' },
  21003: { res: 'GFY', code: 6, error: 'Invalid Request' },
  21004: { res: 'GFY', code: 6, error: 'Invalid Request' },
} as const

for (const [kind, expected] of Object.entries(invalidShapes)) {
  test(`kind ${kind}: a body nested 40 levels deep is answered with ${JSON.stringify(expected)}`, async () => {
    const reply = await client.ask(Number(kind), deep(40))
    assert.equal(reply.payload, expected)
    assert.is(reply.event.kind, Number(kind))
    assert.is(tagOf(reply.event, 'p'), client.pubkey)
    assert.is(tagOf(reply.event, 'clink_version'), '1', 'every CLINK answer carries the version')
  })
}

test.run()
