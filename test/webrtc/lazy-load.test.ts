// The WebRTC stack (werift and what it pulls in, mediabunny among them: about 23 MB) is not loaded by a start: only
// the first metrics caller's offer loads it. A module hook in the daemon's process (NODE_OPTIONS=--import) reports
// each werift or mediabunny module as it is resolved.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'

const test = suite('WebRTC loads on first use')
let daemon: TestDaemon

const hooks = `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context)
  if (/werift|mediabunny/.test(found.url)) process.stderr.write('webrtc stack loaded: ' + found.url + '\\n')
  return found
}`

test.before(async () => {
  const dir = tempDataDir()
  const register = path.join(dir, 'register.mjs')
  fs.writeFileSync(
    register,
    `import { register } from 'node:module'\nregister(${JSON.stringify('data:text/javascript,' + encodeURIComponent(hooks))})\n`,
  )
  daemon = await startDaemon({
    config: '[webrtc]\nhost_addresses = ["127.0.0.1"]\n',
    env: { NODE_OPTIONS: `--import=${pathToFileURL(register).href}` },
  })
})
test.after(async () => {
  await daemon?.stop()
})

test('a started daemon has not loaded werift; the first offer loads it and is answered', async () => {
  await new Promise(resolve => setTimeout(resolve, 500))
  assert.not.ok(daemon.logs().includes('webrtc stack loaded'), 'werift loaded at start')
  const { RTCPeerConnection } = await import('werift')
  const pc = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false, iceInterfaceAddresses: { udp4: '127.0.0.1' } })
  try {
    pc.createDataChannel('metrics')
    await pc.setLocalDescription(await pc.createOffer())
    const reply = await daemon.request('POST', '/api/upgrade/wrtc', {
      body: { message: { type: 'offer', offer: JSON.stringify(pc.localDescription) } },
      headers: { authorization: daemon.adminToken },
    })
    assert.is(reply.json.status, 'OK', reply.text)
    assert.match(JSON.parse(reply.json.answer).type, 'answer')
    assert.match(daemon.logs(), /webrtc stack loaded: .*werift/)
  } finally {
    await pc.close()
  }
})

test.run()
