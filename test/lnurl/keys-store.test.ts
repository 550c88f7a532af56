// The withdraw key claim is what makes a link pay at most once: over HTTP the daemon happens to finish one
// internal payment before it reads the next request, so the race is exercised here, on the real schema.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openStore } from '../../src/store/index.js'
import { lnurlKeysStore } from '../../src/lnurl/keys-store.js'

const test = suite('lnurl keys store')

function withStore(run: (keys: ReturnType<typeof lnurlKeysStore>, userId: string, appId: string) => void) {
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-lnurl-keys-'))
    const store = openStore({ dataDir: dir })
    try {
      const userId = 'a'.repeat(64)
      store.db.prepare('INSERT INTO accounts (id, created_at) VALUES (?, 0)').run('acct')
      store.db.prepare(`INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES (?, 'acct', 'ak', 'ik', 0)`).run(userId)
      store.db.prepare(`INSERT INTO apps (id, name, owner_user_id, nostr_private_key, nostr_public_key, created_at)
                        VALUES ('app', 'app', ?, 'sk', 'pk', 0)`).run(userId)
      run(lnurlKeysStore(store.db, bytes => randomBytes(bytes), () => 1000), userId, 'app')
    } finally {
      store.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

test('a withdraw key is claimed once; a refused attempt releases it for one more claim', withStore((keys, userId) => {
  const k1 = keys.issueWithdrawKey(userId, 5000)
  assert.is(keys.claimWithdrawKey(k1, 'lnbc-first'), true)
  assert.is(keys.claimWithdrawKey(k1, 'lnbc-second'), false)
  assert.is(keys.withdrawKey(k1)?.payment_request, 'lnbc-first')
  keys.releaseWithdrawKey(k1)
  assert.is(keys.claimWithdrawKey(k1, 'lnbc-third'), true)
  keys.settleWithdraw(k1, 'paid')
  assert.is(keys.claimWithdrawKey(k1, 'lnbc-fourth'), false)
  assert.is(keys.withdrawKey(k1)?.outcome, 'paid')
}))

test('pay keys persist per wallet, app and address name', withStore((keys, userId, appId) => {
  const plain = keys.payKeyFor(userId, appId)
  assert.is(plain.k1.length, 62)
  assert.is(keys.payKeyFor(userId, appId).k1, plain.k1)
  const named = keys.payKeyFor(userId, appId, 'alice')
  assert.is.not(named.k1, plain.k1)
  assert.is(keys.payKey(named.k1)?.identifier, 'alice')
}))

test('an address name belongs to one wallet', withStore((keys, userId) => {
  assert.is(keys.claimAddress('alice', userId), true)
  assert.is(keys.claimAddress('alice', userId), true, 'claiming your own name again is fine')
  assert.is(keys.claimAddress('alice', 'b'.repeat(64)), false)
  assert.is(keys.userForAddress('alice'), userId)
}))

test.run()
