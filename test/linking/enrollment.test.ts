// The operator's relay key: admin.connect at first start, EnrollAdminToken, and one-time invites by the admin (and
// the operator's list of them).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { decode } from 'nostr-tools/nip19'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'

const enroll = suite('admin enrollment over the relay')
let daemon: TestDaemon
let dataDir: string
const clients: PubClient[] = []
const connect = async () => {
  const profile = appProfile(dataDir)
  const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  clients.push(client)
  return client
}
const file = (name: string) => path.join(dataDir, name)

enroll.before(async () => {
  daemon = await startDaemon()
  dataDir = daemon.dataDir
})
enroll.after(async () => {
  clients.forEach(c => c.close())
  await daemon.stop()
})

let admin: PubClient

enroll('a fresh daemon writes admin.connect (0600) as <nprofile of the default app>:<the admin.enroll token>', () => {
  const connectLine = fs.readFileSync(file('admin.connect'), 'utf8').trim()
  const token = fs.readFileSync(file('admin.enroll'), 'utf8').trim()
  assert.match(token, /^[0-9a-f]{64}$/)
  const [nprofile, tokenInConnect] = connectLine.split(':')
  assert.is(tokenInConnect, token)
  assert.is(fs.statSync(file('admin.connect')).mode & 0o777, 0o600)
  assert.is(fs.statSync(file('admin.enroll')).mode & 0o777, 0o600)
  const decoded = decode(nprofile!)
  assert.is(decoded.type, 'nprofile')
  assert.equal(decoded.data, { pubkey: appProfile(dataDir).pubkey, relays: appProfile(dataDir).relays })
})

enroll('a wrong token enrolls nobody', async () => {
  admin = await connect()
  const reply = await admin.call('EnrollAdminToken', { admin_token: 'f'.repeat(64) })
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'invalid admin token')
  assert.is((await admin.call('NodeGetInfo', { nodeId: 0 })).reason, 'admin access not configured')
  assert.ok(fs.existsSync(file('admin.connect')))
})

enroll('the token from admin.connect makes the caller the admin and removes both files', async () => {
  const token = fs.readFileSync(file('admin.connect'), 'utf8').trim().split(':')[1]!
  assert.is((await admin.call('EnrollAdminToken', { admin_token: token })).status, 'OK')
  assert.not.ok(fs.existsSync(file('admin.connect')))
  assert.not.ok(fs.existsSync(file('admin.enroll')))
  const info = await admin.call('NodeGetInfo', { nodeId: 0 })
  assert.is(info.status, 'OK', JSON.stringify(info))
  const other = await connect()
  assert.is((await other.call('NodeGetInfo', { nodeId: 0 })).reason, 'admin access denied')
  assert.is((await other.call('EnrollAdminToken', { admin_token: token })).reason, 'admin enrollment is closed')
})

enroll('the enrolled admin survives a restart, and no new connection string is written', async () => {
  await daemon.stop()
  admin.close()
  daemon = await startDaemon({ dataDir })
  admin = await PubClient.connect({ relays: appProfile(dataDir).relays, appPubkey: appProfile(dataDir).pubkey, secretKey: admin.secretKey })
  clients.push(admin)
  const info = await admin.call('NodeGetInfo', { nodeId: 0 })
  assert.is(info.status, 'OK', JSON.stringify(info))
  assert.not.ok(fs.existsSync(file('admin.connect')))
})

enroll('an invite from the admin opens exactly one account for the key that uses it', async () => {
  const created = await admin.ok('CreateOneTimeInviteLink', { sats: 100 })
  const token: string = created.invitation_link
  assert.match(token, /^[0-9a-f]{64}$/)
  assert.is((await admin.ok('GetInviteLinkState', { invite_token: token })).used, false)
  const invitee = await connect()
  assert.is((await invitee.call('UseInviteLink', { invite_token: token })).status, 'OK')
  assert.is((await admin.ok('GetInviteLinkState', { invite_token: token })).used, true)
  assert.is((await invitee.ok('GetWalletKeys')).status, 'OK')
  const late = await connect()
  assert.is((await late.call('UseInviteLink', { invite_token: token })).reason, 'invite token already used')
  // A key that already has an account cannot take an invite.
  const second = (await admin.ok('CreateOneTimeInviteLink', {})).invitation_link
  assert.is((await invitee.call('UseInviteLink', { invite_token: second })).reason, 'this key already has an account')
  assert.is((await admin.ok('GetInviteLinkState', { invite_token: second })).used, false)
  assert.is((await invitee.call('UseInviteLink', { invite_token: 'a'.repeat(64) })).reason, 'invalid invite token')

  // The operator's list (the console's): both invites, newest first, the used one naming the key that used it.
  const listed = await daemon.request('GET', '/api/operator/invites', { headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.is(listed.status, 200, listed.text)
  const invites = listed.json.invites as { invite_token: string; sats?: number; used: boolean; used_by: string; used_at: number; created_at: number }[]
  assert.equal(invites.map(invite => invite.invite_token), [second, token])
  assert.equal([invites[1]!.used, invites[1]!.used_by, invites[1]!.sats], [true, invitee.pubkey, 100])
  assert.ok(invites[1]!.used_at >= invites[1]!.created_at && invites[1]!.created_at > 1_700_000_000, 'unix seconds')
  assert.equal([invites[0]!.used, invites[0]!.used_by, invites[0]!.used_at, invites[0]!.sats], [false, '', 0, undefined])
  const stranger = await daemon.request('GET', '/api/operator/invites')
  assert.is(stranger.status, 401, 'only the operator lists them')
})

enroll('invites are admin operations: another key is refused', async () => {
  const other = await connect()
  assert.is((await other.call('CreateOneTimeInviteLink', {})).reason, 'admin access denied')
})

enroll.run()
