// The auth matrix over the relay (kind 21000), generated from the catalogue like the HTTP one
// (test/auth/catalogue-auth.test.ts), so an operation added later is covered without touching this file. Over
// Nostr the caller is the event's pubkey: an operator operation (admin, metrics, operator) answers only the
// enrolled admin key, app and wallet-key operations answer nobody, and the person kinds (user, member, guestPub,
// guest) let any key through authentication — before enrollment, after it, and for the admin itself.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { catalogue } from '../../schema/catalogue.js'
import type { AuthKind } from '../../schema/operation.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'

type NostrCaller = 'stranger' | 'admin'

const operatorKinds: AuthKind[] = ['admin', 'metrics', 'operator']
/** Kinds whose credentials cannot travel in an event: app tokens and wallet keys are HTTP credentials. */
const httpOnlyKinds: AuthKind[] = ['app', 'walletInvoice', 'walletAdmin']

/** Which Nostr callers each caller kind lets through; `enrolled` says whether an admin key is enrolled yet. */
function passes(kind: AuthKind, caller: NostrCaller): boolean {
  if (httpOnlyKinds.includes(kind)) return false
  if (operatorKinds.includes(kind)) return caller === 'admin'
  return true
}

const refusals = /^(admin access not configured|admin access denied|Metrics unavailable|app operations are not available over Nostr|No Api Key provided\.|Nostr only route|Wallet not found\.|Invalid adminkey\.)$/

const entries = catalogue.filter(e => e.nostr)
const matrix = suite('every relay operation against every kind of Nostr caller')
let daemon: TestDaemon
const clients: PubClient[] = []
const connect = async () => {
  const profile = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, timeoutMs: 15_000 })
  clients.push(client)
  return client
}

matrix.before(async () => {
  daemon = await startDaemon()
})
matrix.after(async () => {
  clients.forEach(c => c.close())
  await daemon?.stop()
})

/** The reason of the reply, or '' for an OK (streams that pass answer nothing: they are only checked for refusals). */
async function reasonFor(client: PubClient, name: string): Promise<string> {
  const reply = await client.call(name, {})
  return reply.status === 'OK' ? '' : String(reply.reason)
}

async function walk(client: PubClient, caller: NostrCaller, refusedBefore: (kind: AuthKind) => RegExp): Promise<number> {
  let checked = 0
  for (const entry of entries) {
    const expected = passes(entry.auth, caller)
    if (expected && entry.stream) continue
    const reason = await reasonFor(client, entry.name)
    if (expected) assert.not.match(reason, refusals, `${entry.name} (${entry.auth}) as ${caller}: ${reason}`)
    else assert.match(reason, refusedBefore(entry.auth), `${entry.name} (${entry.auth}) as ${caller}: ${reason}`)
    checked++
  }
  return checked
}

const refusedAs = (adminReason: RegExp) => (kind: AuthKind) =>
  operatorKinds.includes(kind) ? adminReason : /^(app operations are not available over Nostr|No Api Key provided\.)$/

matrix('the catalogue has relay operations of every kind that can travel over Nostr', () => {
  const kinds = new Set(entries.map(e => e.auth))
  for (const kind of ['user', 'admin', 'metrics', 'guestPub'] as AuthKind[]) assert.ok(kinds.has(kind), kind)
})

matrix('before any admin is enrolled, a stranger gets no operator operation', async () => {
  const stranger = await connect()
  const checked = await walk(stranger, 'stranger', refusedAs(/^admin access not configured$/))
  assert.ok(checked > 50, `${checked} operations checked`)
})

matrix('after enrollment, a stranger still gets none, and the enrolled key gets every operator operation', async () => {
  const admin = await connect()
  const token = fs.readFileSync(path.join(daemon.dataDir, 'admin.connect'), 'utf8').trim().split(':')[1]!
  assert.is((await admin.call('EnrollAdminToken', { admin_token: token })).status, 'OK')
  const stranger = await connect()
  await walk(stranger, 'stranger', refusedAs(/^(admin access denied|Metrics unavailable)$/))
  await walk(admin, 'admin', () => /^(app operations are not available over Nostr|No Api Key provided\.)$/)
})

matrix('a stranger cannot take over enrollment once it is closed', async () => {
  const stranger = await connect()
  const reply = await stranger.call('EnrollAdminToken', { admin_token: 'f'.repeat(64) })
  assert.is(reply.status, 'ERROR')
  assert.match(reply.reason, /enrollment is closed|invalid admin token/)
  assert.is((await stranger.call('NodeGetInfo', {})).reason, 'admin access denied')
})

matrix.run()
