// The console's sign-in over plain HTTP, as a browser or an attacker would send it: the page's security headers,
// the cookie's flags, the CSRF header and Origin check that let a session stand for the admin token, the delay
// after a wrong token, and sign-out.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const session = suite('console sessions')
let daemon: TestDaemon

// A metrics token of its own, as an operator may set one: the console's charts must still load.
const metricsToken = 'metrics-token-of-its-own-0123456789'

session.before(async () => {
  daemon = await startDaemon({ config: `[auth]\nmetrics_token = "${metricsToken}"\n` })
})
session.after(async () => {
  await daemon?.stop()
})

async function signIn(token: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${daemon.url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  })
  return { res, body: (await res.json()) as { csrf?: string; detail?: string } }
}

const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!

session('the page is served with a strict CSP and no inline script or style', async () => {
  const res = await fetch(`${daemon.url}/console/`)
  assert.is(res.status, 200)
  const csp = res.headers.get('content-security-policy')!
  assert.match(csp, /default-src 'none'/)
  assert.match(csp, /script-src 'self'(;|$)/)
  assert.match(csp, /style-src 'self'(;|$)/)
  assert.not.match(csp, /unsafe-inline|unsafe-eval/)
  assert.match(csp, /frame-ancestors 'none'/)
  const html = await res.text()
  assert.not.match(html, /<script>|<style|\sstyle=|\son[a-z]+=/i)
  assert.match(html, /<script type="module" src="assets\/console.js"><\/script>/)
  const script = await fetch(`${daemon.url}/console/assets/console.js`)
  assert.is(script.status, 200)
  assert.match(script.headers.get('content-type')!, /javascript/)
  const code = await script.text()
  assert.ok(code.length > 10_000)
  // No CDN, no font or script from elsewhere: the only addresses in the bundle are XML namespace names.
  const style = await (await fetch(`${daemon.url}/console/assets/console.css`)).text()
  const addresses = [...`${code}\n${style}`.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"')]*/gi)].map(m => m[0])
  assert.equal(addresses.filter(address => !/^http:\/\/www\.w3\.org\//.test(address)), [])
  assert.is((await fetch(`${daemon.url}/console/assets/../admin.token`)).status, 404)
  assert.is((await fetch(`${daemon.url}/console`, { redirect: 'manual' })).status, 308)
})

session('the admin token becomes an HttpOnly SameSite=Strict cookie; a call needs it and the CSRF header', async () => {
  const { res, body } = await signIn(daemon.adminToken)
  assert.is(res.status, 200)
  const setCookie = res.headers.get('set-cookie')!
  assert.match(setCookie, /^relaypay_console=[A-Za-z0-9_-]{40,};/)
  assert.match(setCookie, /HttpOnly/)
  assert.match(setCookie, /SameSite=Strict/)
  assert.match(setCookie, /Path=\//)
  assert.match(setCookie, /Max-Age=1800(;|$)/, 'short-lived: [console] session_minutes (30) without a request')
  assert.not.match(setCookie, /Secure/, 'plain HTTP on loopback: no Secure flag, or the browser would drop it')
  assert.not.ok(setCookie.includes(daemon.adminToken))
  const cookie = cookieOf(res)
  const csrf = body.csrf!
  const apps = (headers: Record<string, string>) => fetch(`${daemon.url}/api/operator/apps`, { headers })

  assert.is((await apps({ cookie, 'x-console-csrf': csrf })).status, 200)
  // A cross-site request carries the cookie (in browsers that ignore SameSite) but cannot know the CSRF token.
  assert.is((await apps({ cookie })).status, 401)
  assert.is((await apps({ cookie, 'x-console-csrf': 'guess' })).status, 401)
  assert.is((await apps({ cookie, 'x-console-csrf': csrf, origin: 'https://evil.example' })).status, 401)
  // Upstream's admin routes accept the session the same way.
  const info = await fetch(`${daemon.url}/api/admin/node/getinfo`, { method: 'POST', headers: { cookie, 'x-console-csrf': csrf, 'content-type': 'application/json' }, body: '{"nodeId":0}' })
  const infoBody = (await info.json()) as { status: string; reason?: string }
  assert.is(infoBody.status, 'OK', infoBody.reason)

  // The metrics operations (charts, error counts) take the metrics token, which the session stands for there.
  const bundle = await fetch(`${daemon.url}/api/reports/bundle`, { method: 'POST', headers: { cookie, 'x-console-csrf': csrf, 'content-type': 'application/json' }, body: '{}' })
  const bundleBody = (await bundle.json()) as { status: string; reason?: string }
  assert.is(bundleBody.status, 'OK', bundleBody.reason)
  const adminOnMetrics = await daemon.request('POST', '/api/reports/bundle', { body: {}, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.match(adminOnMetrics.text, /metrics token/, 'the admin token itself is not taken there')

  const resumed = await fetch(`${daemon.url}/console/api/session`, { headers: { cookie } })
  assert.equal(await resumed.json(), { csrf })

  const out = await fetch(`${daemon.url}/console/api/session`, { method: 'DELETE', headers: { cookie, 'x-console-csrf': csrf } })
  assert.match(out.headers.get('set-cookie')!, /Max-Age=0/)
  assert.is((await apps({ cookie, 'x-console-csrf': csrf })).status, 401, 'signed out: the old cookie is refused')
})

session('a wrong token gets a clear message and a growing per-address delay, not a lockout', async () => {
  const started = Date.now()
  const wrong = await signIn('not-the-token-at-all')
  assert.is(wrong.res.status, 401)
  assert.match(wrong.body.detail!, /not the admin token/)
  assert.ok(Date.now() - started >= 200, 'the wrong answer itself is delayed')
  const again = await signIn(daemon.adminToken)
  assert.is(again.res.status, 429, 'right away again: wait first')
  assert.match(again.body.detail!, /try again in \d+ s/)
  assert.ok(Number(again.res.headers.get('retry-after')) >= 1)
  await new Promise(resolve => setTimeout(resolve, 600))
  const right = await signIn(daemon.adminToken)
  assert.is(right.res.status, 200, 'after the short wait the real operator gets in')
})

session('a sign-in from another site is refused', async () => {
  const { res } = await signIn(daemon.adminToken, { origin: 'https://evil.example' })
  assert.is(res.status, 403)
})

session('behind a trusted proxy the cookie is Secure and the forwarded host is the origin; otherwise those headers are ignored', async () => {
  const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pay.example.com', origin: 'https://pay.example.com' }
  const untrusted = await signIn(daemon.adminToken, proxied)
  assert.is(untrusted.res.status, 403, 'without trust_proxy a forwarded host is not believed')
  const plain = await signIn(daemon.adminToken, { 'x-forwarded-proto': 'https' })
  assert.not.match(plain.res.headers.get('set-cookie')!, /Secure/)
  const behindProxy = await startDaemon({ env: { RELAYPAY_CONSOLE_TRUST_PROXY: 'true' } })
  try {
    const res = await fetch(`${behindProxy.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...proxied },
      body: JSON.stringify({ token: behindProxy.adminToken }),
    })
    assert.is(res.status, 200)
    assert.match(res.headers.get('set-cookie')!, /; Secure/)

    // The wrong-token wait belongs to the browser's address the proxy appended, not to the proxy: a stranger's
    // wrong token does not hold up the operator, and the stranger cannot dodge it by writing the header himself.
    const viaProxy = (token: string, forwardedFor: string) => fetch(`${behindProxy.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...proxied, 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ token }),
    })
    assert.is((await viaProxy('a-stranger-guessing-0123', '203.0.113.9')).status, 401)
    assert.is((await viaProxy(behindProxy.adminToken, '198.51.100.7')).status, 200, 'the operator is not made to wait')
    assert.is((await viaProxy(behindProxy.adminToken, '198.51.100.7, 203.0.113.9')).status, 429, 'the stranger waits, whatever he writes before')
  } finally {
    await behindProxy.stop()
  }
})

session('without trust_proxy a forwarded address is ignored: the wait stays with the socket\'s address', async () => {
  const from = (token: string, forwardedFor: string) => signIn(token, { 'x-forwarded-for': forwardedFor })
  assert.is((await from('still-not-the-token-0123', '203.0.113.9')).res.status, 401)
  assert.is((await from(daemon.adminToken, '198.51.100.7')).res.status, 429)
  await new Promise(resolve => setTimeout(resolve, 600))
  assert.is((await signIn(daemon.adminToken)).res.status, 200)
})

session.run()
