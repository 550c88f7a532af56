// Path traversal: every name a caller gives that could reach the disk — a model name (download, progress, the
// default, a recording's model), a recording id, a metrics series (the TLV files under <data_dir>/metrics), and the
// URL path itself — in every hostile spelling: ../, absolute paths, NUL bytes, percent-encoded and double-encoded
// dots and slashes, backslashes, very long names and malformed escapes. Each is refused with a 4xx, no file appears
// or changes outside where the daemon keeps its own, and the model host is never asked for such a name.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startModelHost, type ModelHost } from '../support/model-host.js'

const base = '/transcription/api/v1'
const hostile = [
  '../../admin.token', '../../../../../../etc/passwd', '/etc/passwd', '..', '.', 'tiny/../../admin.token', 'tiny\0.bin',
  '..\\..\\admin.token', 'C:\\Windows\\win.ini', '%2e%2e%2f%2e%2e%2fadmin.token', '%252e%252e%252fadmin.token',
  '....//....//admin.token', 'x'.repeat(5000), 'tiny%00', '~/.ssh/id_rsa', 'tiny\n../../x',
]

const traversal = suite('names that could touch the disk')
let daemon: TestDaemon
let host: ModelHost
let outside: string
const operator = () => ({ authorization: `Bearer ${daemon.adminToken}` })

/** Every file under a directory with its size and mtime, to see that nothing appeared or changed. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (!/relaypay\.sqlite|relay\.sqlite|\.json$|metrics/.test(full)) {
        const stat = fs.statSync(full)
        files.set(path.relative(dir, full), `${stat.size}:${stat.mtimeMs}`)
      }
    }
  }
  walk(dir)
  return files
}

traversal.before(async () => {
  host = await startModelHost()
  daemon = await startDaemon({ config: `[models]\nengine = "assume_installed"\nbase_url = "${host.baseUrl}"\n` })
  outside = path.dirname(daemon.dataDir)
})
traversal.after(async () => {
  await daemon?.stop()
  await host?.close()
})

traversal('model names in the URL: download and progress refuse every hostile name, encoded once or twice', async () => {
  const before = snapshot(outside)
  for (const name of hostile) {
    for (const encoded of [encodeURIComponent(name), encodeURIComponent(encodeURIComponent(name)), name.replace(/\//g, '%2F')]) {
      for (const method of ['POST', 'GET']) {
        const res = await daemon.request(method, `${base}/models/${encoded}/download`, { headers: operator() }).catch(err => ({ status: 0, text: String(err) }))
        if (res.status === 0) continue // a name fetch itself will not put on the wire (a NUL or newline)
        assert.ok(res.status >= 400 && res.status < 500, `${method} ${JSON.stringify(name)}: ${res.status} ${res.text}`)
      }
    }
  }
  assert.equal(snapshot(outside), before)
  const cache = path.join(daemon.dataDir, 'models')
  assert.equal(fs.existsSync(cache) ? fs.readdirSync(cache) : [], [])
})

traversal('a valid name does reach the model host, so the refusals above are about the names', async () => {
  assert.is(host.requests('ggml-tiny.bin'), 0)
  await daemon.request('POST', `${base}/models/tiny/download`, { headers: operator() })
  assert.ok(host.requests('ggml-tiny.bin') >= 1)
})

traversal('the default model and a recording model refuse hostile names in the body', async () => {
  const before = snapshot(outside)
  for (const name of hostile) {
    const set = await daemon.request('PUT', `${base}/models/default`, { body: { model: name }, headers: operator() })
    assert.is(set.status, 422, `${JSON.stringify(name)}: ${set.text}`)
    const recorded = await daemon.request('POST', `${base}/recordings`, { body: { audio_base64: 'UklGRg==', model: name }, headers: operator() })
    assert.ok(recorded.status >= 400 && recorded.status < 500, `${JSON.stringify(name)}: ${recorded.status}`)
  }
  assert.is((await daemon.request('GET', `${base}/models/default`, { headers: operator() })).json.default_model, 'base')
  assert.equal(snapshot(outside), before)
})

traversal('recording ids never name a file', async () => {
  // `.` and `..` as a path segment are resolved by the client before sending (RFC 3986), so they are not ids.
  for (const id of hostile.filter(id => !/^\.+$/.test(id))) {
    const res = await daemon.request('GET', `${base}/recordings/${encodeURIComponent(id)}`, { headers: operator() }).catch(() => undefined)
    if (!res) continue
    assert.ok([404, 422].includes(res.status), `${JSON.stringify(id)}: ${res.status} ${res.text}`)
  }
})

traversal('metrics series names cannot leave the metrics directory', async () => {
  for (const name of [...hostile, 'app/../../..', '../usage/x', 'x/..', '%2e%2e/%2e%2e']) {
    for (const [route, type] of [['/api/reports/usage/single', 'USAGE_METRIC'], ['/api/reports/bundle/single', 'BUNDLE_METRIC']]) {
      const body = { app_id: '', metrics_name: name, page: 0, metric_type: type }
      const res = await daemon.request('POST', route!, { body, headers: { authorization: daemon.adminToken } })
      assert.is(res.json?.status, 'ERROR', `${JSON.stringify(name)}: ${res.text}`)
      // A name holding NUL is refused at the door, before the reports look for it (no store can keep one).
      assert.match(res.json.reason, /not found|custom check failed|holds the NUL character/, res.json.reason)
      assert.not.match(res.json.reason, /root:|ENOENT|EISDIR|EACCES/)
    }
  }
})

traversal('the URL path: dot segments and malformed escapes reach no file and no server error', async () => {
  for (const raw of ['/../admin.token', '/%2e%2e/admin.token', '/%2e%2e%2fadmin.token', '/api/%2e%2e/%2e%2e/admin.token', '/..%5c..%5cadmin.token', `${base}/models/%E0%A4%A/download`, `${base}/recordings/%`, '/api/%00']) {
    const res = await fetch(daemon.url + raw, { headers: operator() })
    const text = await res.text()
    assert.ok(res.status >= 400 && res.status < 500, `${raw}: ${res.status} ${text}`)
    assert.not.ok(text.includes(daemon.adminToken), raw)
  }
  assert.not.match(daemon.logs(), /http request failed outside the dispatcher/)
})

traversal.run()
