// Configuration as an operator meets it: the example file, environment overrides, and one clear line for a
// bad value.
import { npubEncode, nsecEncode } from 'nostr-tools/nip19'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { parse } from 'smol-toml'
import { pathToFileURL } from 'node:url'
import { loadConfig, ConfigError, configSchema } from '../../src/config/index.js'
import { extensionDescriptors } from '../../src/extensions/descriptors.js'
import { repoRoot } from '../support/paths.js'
import { cliPath, tempDataDir } from '../support/daemon.js'

const config = suite('config')
const exampleFile = path.join(repoRoot, 'config.example.toml')

/** The script that assembles the example from the core's fragment and the extensions' (`npm run config-example`). */
interface Assembler {
  assembledFile: string
  coreFragment: string
  extensionFragment(id: string): string
  assembleConfigExample(root: string, descriptors: readonly { id: string; config?: unknown }[]): string
}
const assembler = (): Promise<Assembler> => import(pathToFileURL(path.join(repoRoot, 'scripts/assemble-config-example.mjs')).href)

/** The `[section]` headers of a TOML text, in order. */
const sectionsOf = (text: string) => [...text.matchAll(/^\[(\w+)\]/gm)].map(m => m[1]!)

/** Every `section.key` of a zod object schema. */
function schemaKeys(): string[] {
  const keys: string[] = []
  for (const [name, field] of Object.entries(configSchema.shape)) {
    const inner = (field as any).def.innerType ?? field
    if (inner.def?.type === 'object') for (const key of Object.keys(inner.shape)) keys.push(`${name}.${key}`)
    else keys.push(name)
  }
  return keys.sort()
}

/** Every key in the example, including the commented-out `# key = value` lines. */
function exampleKeys(): string[] {
  const keys: string[] = []
  let section = ''
  for (const line of fs.readFileSync(exampleFile, 'utf8').split('\n')) {
    const header = line.match(/^\[(\w+)\]/)
    if (header) section = header[1]!
    const key = line.match(/^#?\s?([a-z_]+) = /)
    if (key) keys.push(section ? `${section}.${key[1]}` : key[1]!)
  }
  // A key may appear twice: its default, then a commented example value.
  return [...new Set(keys)].sort()
}

config('config.example.toml documents every key the daemon knows, and no other', () => {
  assert.equal(exampleKeys(), schemaKeys())
})

config('config.example.toml is the core\'s fragment, then each listed extension\'s, as the script assembles them', async () => {
  const { assembleConfigExample } = await assembler()
  const assembled = assembleConfigExample(repoRoot, extensionDescriptors)
  assert.ok(
    fs.readFileSync(exampleFile, 'utf8') === assembled,
    'config.example.toml is not what its fragments assemble to: edit src/config/config.example.toml or ' +
      'src/extensions/<id>/config.example.toml, never the root file, then run `npm run config-example`',
  )
  // In the order of the list: the core's sections, then the extensions' at the end.
  const withSections = extensionDescriptors.filter(descriptor => descriptor.config).map(descriptor => descriptor.id)
  assert.equal(sectionsOf(assembled).slice(-withSections.length), withSections)
})

config("each extension's fragment documents its own section and no other; the core's fragment none of theirs", async () => {
  const { coreFragment, extensionFragment } = await assembler()
  const read = (relative: string) => fs.readFileSync(path.join(repoRoot, relative), 'utf8')
  const core = sectionsOf(read(coreFragment))
  for (const { id, config } of extensionDescriptors) {
    assert.not.ok(core.includes(id), `${coreFragment} documents [${id}]`)
    if (config) assert.equal(sectionsOf(read(extensionFragment(id))), [id], extensionFragment(id))
  }
})

config('the assembly follows a fragment that changed, and refuses a section with no fragment (control)', async () => {
  const { assembleConfigExample, coreFragment, extensionFragment } = await assembler()
  const root = tempDataDir()
  const copy = (relative: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    fs.copyFileSync(path.join(repoRoot, relative), path.join(root, relative))
  }
  copy(coreFragment)
  const [first, ...others] = extensionDescriptors.filter(descriptor => descriptor.config)
  for (const { id } of [first!, ...others]) copy(extensionFragment(id))
  const before = assembleConfigExample(root, extensionDescriptors)
  // An edited fragment: the root file no longer matches, so the test above would fail until it is regenerated.
  fs.appendFileSync(path.join(root, extensionFragment(first!.id)), '# one more line\n')
  const after = assembleConfigExample(root, extensionDescriptors)
  assert.is.not(after, before)
  assert.ok(after.includes('# one more line\n'))
  fs.rmSync(path.join(root, extensionFragment(first!.id)))
  assert.throws(() => assembleConfigExample(root, extensionDescriptors), new RegExp(`extension ${first!.id} has a config section, and no`))
})

config('the example file parses to the defaults', () => {
  const fromExample = configSchema.parse(parse(fs.readFileSync(exampleFile, 'utf8')))
  assert.equal(fromExample, configSchema.parse({}))
})

config('with no config the offline default holds', () => {
  const c = loadConfig({ env: {} })
  assert.is(c.data_dir, './data')
  assert.is(c.http.host, '127.0.0.1')
  assert.is(c.http.port, 1776)
  assert.is(c.node.backend, 'embedded')
  assert.equal(c.nostr.relays, [])
})

config('RELAYPAY_<SECTION>_<KEY> overrides the file, flags override both', () => {
  const dir = tempDataDir()
  const file = path.join(dir, 'c.toml')
  fs.writeFileSync(file, '[http]\nport = 9000\n[auth]\nadmin_token = "from-the-file-0123456789"\n')
  const c = loadConfig({
    file,
    env: { RELAYPAY_AUTH_ADMIN_TOKEN: 'from-the-environment-0123', RELAYPAY_NODE_SIMULATE_PAYMENTS: 'true' },
    flags: { 'http.port': 9100 },
  })
  assert.is(c.auth.admin_token, 'from-the-environment-0123')
  assert.is(c.node.simulate_payments, true)
  assert.is(c.http.port, 9100)
})

config('RELAYPAY_TEST_* belongs to the test suite: a daemon started from a test run is not refused for it', () => {
  const c = loadConfig({ env: { RELAYPAY_TEST_REQUIRE_BROWSER: '1', RELAYPAY_TEST_POSTGRES_URL: 'postgres://x', RELAYPAY_HTTP_PORT: '8080' } })
  assert.is(c.http.port, 8080)
  assert.not.ok('test' in c)
})

config('a bad value is one line naming the key and where it came from', () => {
  assert.throws(
    () => loadConfig({ env: { RELAYPAY_HTTP_PORT: '70000' } }),
    (err: Error) => err instanceof ConfigError && /http\.port \(from RELAYPAY_HTTP_PORT\)/.test(err.message),
  )
  assert.throws(
    () => loadConfig({ env: { RELAYPAY_NODE_BACKEND: 'c-lightning' } }),
    (err: Error) => /node\.backend/.test(err.message),
  )
})

config("the beacon's operator is an npub or 64 hex characters, read as lower-case hex", () => {
  const hex = 'AB'.repeat(32)
  assert.is(loadConfig({ env: { RELAYPAY_CLINK_OPERATOR: hex } }).clink.operator, hex.toLowerCase())
  assert.is(loadConfig({ env: { RELAYPAY_CLINK_OPERATOR: npubEncode(hex.toLowerCase()) } }).clink.operator, hex.toLowerCase())
  assert.throws(
    () => loadConfig({ env: { RELAYPAY_CLINK_OPERATOR: 'npub1notakey' } }),
    (err: Error) => /clink\.operator \(from RELAYPAY_CLINK_OPERATOR\): must be an npub or 64 hex characters/.test(err.message),
  )
  // A private key (nsec) is refused the same way: it is not what the beacon may name.
  assert.throws(() => loadConfig({ env: { RELAYPAY_CLINK_OPERATOR: nsecEncode(new Uint8Array(32).fill(7)) } }), (err: Error) => /clink\.operator/.test(err.message))
})

config("the beacons' avatar is an http or https URL, trimmed, or empty", () => {
  assert.is(loadConfig({ env: {} }).clink.beacon_avatar_url, '')
  assert.is(loadConfig({ env: { RELAYPAY_CLINK_BEACON_AVATAR_URL: ' https://node.example/a.png ' } }).clink.beacon_avatar_url, 'https://node.example/a.png')
  for (const bad of ['ftp://node.example/a.png', 'javascript:alert(1)', 'not a url']) {
    assert.throws(() => loadConfig({ env: { RELAYPAY_CLINK_BEACON_AVATAR_URL: bad } }), (err: Error) => /clink\.beacon_avatar_url/.test(err.message), bad)
  }
})

config('an unknown key in the file is refused by name', () => {
  const file = path.join(tempDataDir(), 'c.toml')
  fs.writeFileSync(file, '[http]\nprot = 1\n')
  assert.throws(
    () => loadConfig({ file, env: {} }),
    (err: Error) => /^unknown config key http\.prot \(from .*c\.toml line 2\): did you mean http\.port\?$/.test(err.message),
  )
})

config('`relaypay start` lists every bad key and value at once, each with its file and line or its variable', () => {
  const dataDir = tempDataDir()
  const file = path.join(dataDir, 'relaypay.toml')
  fs.writeFileSync(
    file,
    [
      '[log]',
      'level = "loud"', // line 2: a value outside the choices
      'port = 3', // line 3: a key of another table
      '',
      '[http]',
      'prot = 1776', // line 6: a typo
      'max_body_bytes = 10', // line 7: too small
      '',
      '[htp]', // line 9: a typo of a table
      'host = "x"',
      '',
      '[[swaps.providers]]',
      'http = "https://provider.invalid"',
      '[[swaps.providers]]',
      'http = "not a url"', // line 15: the second provider's value
      'zero_cnf = true', // line 16
    ].join('\n'),
  )
  const run = spawnSync(process.execPath, [cliPath, 'start', '--data-dir', dataDir], {
    env: { ...process.env, RELAYPAY_FEES_SERVICE_FEE_BPS: '99999' },
    encoding: 'utf8',
    timeout: 20_000,
  })
  assert.is(run.status, 1)
  // In the file's order, then what the environment set.
  const lines = run.stderr.trim().split('\n')
  const at = (line: number) => `(from ${file} line ${line})`
  assert.equal(lines, [
    `relaypay: invalid config value log.level ${at(2)}: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"`,
    `relaypay: unknown config key log.port ${at(3)}: did you mean [http] port?`,
    `relaypay: unknown config key http.prot ${at(6)}: did you mean http.port?`,
    `relaypay: invalid config value http.max_body_bytes ${at(7)}: Too small: expected number to be >=1024`,
    `relaypay: unknown config key htp ${at(9)}: did you mean http?`,
    `relaypay: invalid config value swaps.providers.1.http ${at(15)}: Invalid URL`,
    `relaypay: unknown config key swaps.providers.1.zero_cnf ${at(16)}: did you mean swaps.providers.1.zero_conf?`,
    `relaypay: invalid config value fees.service_fee_bps (from RELAYPAY_FEES_SERVICE_FEE_BPS): Too big: expected number to be <=10000`,
  ])
  assert.not.match(run.stderr, /\bat \S+:\d+:\d+/) // no stack trace
})

config('a TOML syntax error names its line and column', () => {
  const dataDir = tempDataDir()
  const file = path.join(dataDir, 'broken.toml')
  fs.writeFileSync(file, '[http]\nport = 1776\nhost = = "x"\n')
  const run = spawnSync(process.execPath, [cliPath, 'start', '--data-dir', dataDir, '--config', file], { encoding: 'utf8', timeout: 20_000 })
  assert.is(run.status, 1)
  assert.match(run.stderr.trim(), new RegExp(`^relaypay: config file ${file.replace(/[.]/g, '\\.')} line 3, column \\d+ is not valid TOML: `))
  assert.is(run.stderr.trim().split('\n').length, 1)
})

config('a misspelt rate provider gets a guess too; so does an unknown key set from the environment', () => {
  const file = path.join(tempDataDir(), 'c.toml')
  fs.writeFileSync(file, '[rates.providers]\ncoinbse = "https://rates.invalid"\n')
  assert.throws(
    () => loadConfig({ file, env: { RELAYPAY_HTTP_PROT: '1' } }),
    (err: ConfigError) =>
      err.problems.sort().join('\n') ===
      [
        'unknown config key http.prot (from RELAYPAY_HTTP_PROT): did you mean http.port?',
        `unknown config key rates.providers.coinbse (from ${file} line 2): did you mean rates.providers.coinbase?`,
      ].join('\n'),
  )
})

config('a key nothing resembles gets no guess', () => {
  const file = path.join(tempDataDir(), 'c.toml')
  fs.writeFileSync(file, '[http]\nzzzzzzzzzz = 1\n')
  assert.throws(() => loadConfig({ file, env: {} }), (err: Error) => err.message.endsWith('line 2)'))
})

config('`relaypay start` with a bad value exits 1 with one line on stderr', () => {
  const dataDir = tempDataDir()
  const run = spawnSync(process.execPath, [cliPath, 'start', '--data-dir', dataDir], {
    env: { ...process.env, RELAYPAY_HTTP_PORT: 'abc' },
    encoding: 'utf8',
    timeout: 20_000,
  })
  assert.is(run.status, 1)
  const lines = run.stderr.trim().split('\n')
  assert.is(lines.length, 1, run.stderr)
  assert.match(lines[0]!, /^relaypay: invalid config value http\.port \(from RELAYPAY_HTTP_PORT\)/)
})

config.run()
