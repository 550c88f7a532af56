// Provider URLs may carry credentials (a user name and password, an API key in the query): the daemon never
// prints them, in its log or in the reasons it gives callers, and shows `***` in their place.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { shownUrl, withoutUserinfo } from '../../src/swaps/provider-api.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { startFakeBoltz, type FakeBoltz } from '../support/fake-boltz/fake-boltz.js'
import { jwtSecretConfig } from '../support/accounts.js'
import { call } from '../support/money.js'

const secret = 'hunter2-provider-password'
const s = suite('provider URLs with credentials')

s('shownUrl and withoutUserinfo hide credentials and keep everything else', () => {
  assert.is(shownUrl('https://boltz.example/api'), 'https://boltz.example/api', 'a URL without credentials is left as written')
  assert.is(shownUrl(`https://op:${secret}@boltz.example/api`), 'https://***:***@boltz.example/api')
  assert.is(shownUrl(`https://op@boltz.example/api`), 'https://***@boltz.example/api')
  assert.is(shownUrl(`https://boltz.example/api?key=${secret}&x=1`), 'https://boltz.example/api?key=***&x=***')
  assert.is(shownUrl('not a url'), '<invalid url>')
  assert.is(withoutUserinfo(`fetch of ws://op:${secret}@127.0.0.1:1/v2/ws failed`), 'fetch of ws://***@127.0.0.1:1/v2/ws failed')
})

s('a daemon configured with credentials in provider URLs prints them nowhere', async () => {
  let lnd: FakeLnd | undefined
  let boltz: FakeBoltz | undefined
  let daemon: TestDaemon | undefined
  try {
    lnd = await startFakeLnd({ network: 'regtest' })
    boltz = await startFakeBoltz({ lnd })
    const c = lnd.connection
    const withCredentials = (url: string) => url.replace('://', `://operator:${secret}@`)
    daemon = await startDaemon({
      config:
        jwtSecretConfig('provider-url-tests-secret-0123456789') +
        `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n` +
        `[swaps]\nenabled = true\nproviders = [{ http = "${withCredentials(boltz.url)}", ws = "${withCredentials(boltz.wsUrl)}" }]\n`,
    })
    // fetch refuses URLs with credentials, so the quote fails; its reason names the provider without them.
    const quoted = await call(daemon, '/api/admin/swap/transaction/quote', daemon.adminToken, { transaction_amount_sats: 10_000 })
    assert.is(quoted.status, 'ERROR')
    assert.ok(quoted.reason.includes('http://***:***@127.0.0.1'), quoted.reason)
    assert.not.ok(quoted.reason.includes(secret), 'the caller is not told the password')
    const logs = daemon.logs()
    assert.ok(logs.includes('swaps enabled'))
    assert.ok(logs.includes('***:***@127.0.0.1'), 'the log names the provider with the credentials hidden')
    assert.not.ok(logs.includes(secret), 'the log does not hold the password')
  } finally {
    await daemon?.stop()
    await boltz?.close()
    await lnd?.close()
  }
})

s.run()
