// `[store] url`: PostgreSQL named by the file or RELAYPAY_STORE_URL; anything but a postgres URL is refused
// by name at load, before a daemon would try to connect to it; unset, the daemon stays on SQLite.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { loadConfig, ConfigError } from '../../src/config/index.js'

const s = suite('[store] url')
const noFile = { RELAYPAY_DATA_DIR: '/nonexistent/relaypay-store-url-test' }

s('unset by default: SQLite, a pool of 10 for when it is set', () => {
  const config = loadConfig({ env: noFile })
  assert.is(config.store.url, undefined)
  assert.is(config.store.pool_size, 10)
})

s('RELAYPAY_STORE_URL sets it; postgres:// and postgresql:// both', () => {
  for (const url of ['postgres://relaypay:pw@db.internal:5432/relaypay', 'postgresql://relaypay@127.0.0.1/relaypay?sslmode=require']) {
    assert.is(loadConfig({ env: { ...noFile, RELAYPAY_STORE_URL: url } }).store.url, url)
  }
})

s('another kind of URL, or a path, is one line naming the key and where it came from', () => {
  for (const url of ['mysql://db/relaypay', '/var/lib/relaypay/relaypay.sqlite', 'postgres://']) {
    assert.throws(
      () => loadConfig({ env: { ...noFile, RELAYPAY_STORE_URL: url } }),
      (err: Error) => err instanceof ConfigError && /store\.url \(from RELAYPAY_STORE_URL\)/.test(err.message) && /postgres:\/\//.test(err.message),
      url,
    )
  }
})

s.run()
