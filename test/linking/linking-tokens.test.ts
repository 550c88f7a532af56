// Linking tokens live two minutes on the injected clock, and survive a restart of the room (they are in SQLite).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import { openStore } from '../../src/store/index.js'
import { accountStore } from '../../src/wallet/accounts.js'
import { nostrAccounts } from '../../src/wallet/nostr-accounts.js'
import { createLinking, linkingTokenTtlMs } from '../../src/linking/index.js'
import { createTokenSigner } from '../../src/auth/index.js'
import { OperationError } from '../../src/bus/errors.js'
import { tempDataDir } from '../support/daemon.js'

const tokens = suite('linking tokens expire after two minutes')
let now = 1_800_000_000_000
const clock = { now: () => now }

async function room(dataDir: string) {
  const store = openStore({ dataDir })
  const accounts = accountStore({ sql: store.sql, random: bytes => randomBytes(bytes), now: clock.now })
  const nostr = nostrAccounts({ sql: store.sql, accounts, random: bytes => randomBytes(bytes), now: clock.now })
  const linking = await createLinking({
    sql: store.sql, accounts, nostr, tokens: createTokenSigner('x'.repeat(32)), clock, random: bytes => randomBytes(bytes),
    log: pino({ level: 'silent' }), dataDir, defaultAppId: '', allowHttpUpgrade: false, serviceUrl: () => '',
    dispatcher: { resolve: () => undefined, call: () => { throw new Error('unused') } },
  })
  const call = (op: string, input: unknown, caller: unknown) =>
    (linking.handlers as any)[op](input, { caller, clock, requestId: 'r', transport: 'http', log: pino({ level: 'silent' }) })
  return { store, accounts, call }
}

tokens('a token presented after two minutes is refused; a fresh one can then be requested', async () => {
  const dataDir = tempDataDir()
  let r = await room(dataDir)
  const app = await r.accounts.createApp('shop', false)
  await r.accounts.createAppUser(app.id, 'alice')
  const asApp = { kind: 'app', appId: app.id }
  const { token } = await r.call('RequestNPubLinkingToken', { user_identifier: 'alice' }, asApp)
  // The room is rebuilt (a daemon restart): the pending token is still there.
  r.store.close()
  r = await room(dataDir)
  now += linkingTokenTtlMs - 1
  assert.equal((await r.call('GetNPubLinkingState', { user_identifier: 'alice' }, asApp)).state, { type: 'linking_token', linking_token: token })
  now += 1
  assert.equal((await r.call('GetNPubLinkingState', { user_identifier: 'alice' }, asApp)).state, { type: 'unlinked', unlinked: {} })
  try {
    await r.call('LinkNPubThroughToken', { token }, { kind: 'guestPub', pub: 'a'.repeat(64), appId: app.id })
    assert.unreachable('an expired token linked a key')
  } catch (err) {
    assert.instance(err, OperationError)
    assert.is((err as OperationError).message, 'invalid or expired linking token')
  }
  const fresh = await r.call('RequestNPubLinkingToken', { user_identifier: 'alice' }, asApp)
  assert.is.not(fresh.token, token)
  r.store.close()
})

tokens.run()
