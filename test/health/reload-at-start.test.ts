// A SIGHUP that arrives while the daemon is still starting (a `systemctl reload` or a log rotation right after a
// start) must not end it: the handler is in place before the daemon's modules load, and the reload is applied once
// the daemon runs. A preload in the daemon's process (NODE_OPTIONS=--import) sends the process a SIGHUP at the
// moment the store's SQLite package (CommonJS, so seen by Module._load on the main thread) is loaded as part of the
// daemon's modules, mid-start, and says whether a handler was there.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { until } from '../support/until.js'

const test = suite('SIGHUP during the start')
let daemon: TestDaemon | undefined

const preload = `import Module from 'node:module'
import { isMainThread } from 'node:worker_threads'
if (isMainThread) {
  const load = Module._load
  let sent = false
  Module._load = function (request, ...rest) {
    if (!sent && /better-sqlite3/.test(request)) {
      sent = true
      process.stderr.write('sighup handler before the store loaded: ' + (process.listenerCount('SIGHUP') > 0) + '\\n')
      process.kill(process.pid, 'SIGHUP')
    }
    return load.call(this, request, ...rest)
  }
}
`

test.after(async () => {
  if (daemon?.process.exitCode === null) await daemon.stop()
})

test('a SIGHUP sent as the store loads neither ends the start nor is lost: it is applied once the daemon runs', async () => {
  const file = path.join(tempDataDir(), 'sighup-at-start.mjs')
  fs.writeFileSync(file, preload)
  daemon = await startDaemon({ env: { NODE_OPTIONS: `--import=${pathToFileURL(file).href}` } })
  assert.match(daemon.logs(), /sighup handler before the store loaded: true/)
  await until(() => daemon!.logs().includes('"msg":"config reloaded: nothing to apply"'), 'the reload once started')
  const logs = daemon.logs()
  assert.ok(logs.indexOf('"msg":"http listening"') < logs.indexOf('"msg":"config reloaded'), 'the reload waited for the start')
  assert.is((await daemon.request('GET', '/readyz')).status, 200)
})

test.run()
