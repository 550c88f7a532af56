// docs/lnd.md's walkthrough, run as it is written: the commands of its marked block, one after the other in one
// shell, in an empty folder. `npm run regtest --` and `npx relaypay` become this build's own scripts (npm would
// build again, under the feet of the other test files); the network goes into a folder of this test's, on the LND
// version under test, and the daemon and its embedded relay onto free ports. What each step prints is checked where the walkthrough says
// what a reader will see.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { repoRoot } from '../support/paths.js'
import { lndVersionsToTest } from '../support/regtest/index.js'

const doc = fs.readFileSync(path.join(repoRoot, 'docs/lnd.md'), 'utf8')

/** The command lines of the block between the walkthrough markers. */
export function walkthroughCommands(text: string): string[] {
  const marked = /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```\s*<!-- \/walkthrough -->/.exec(text)
  if (!marked) throw new Error('docs/lnd.md has no marked walkthrough block')
  return marked[1].split('\n').filter(line => line.trim() !== '' && !line.trim().startsWith('#'))
}

const regtestCli = `node ${JSON.stringify(path.join(repoRoot, 'build/test/support/regtest/cli.js'))}`
const relaypayCli = `node ${JSON.stringify(path.join(repoRoot, 'build/bin/relaypay.js'))}`
const asThisBuild = (line: string) =>
  line.replaceAll('npm run --silent regtest --', regtestCli).replaceAll('npm run regtest --', regtestCli).replaceAll('npx relaypay', relaypayCli)

/** Runs `script` in bash; past `limitMs` (a step that waits for ever, say) its whole process group is killed. */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv, limitMs = 6 * 60_000): Promise<{ code: number | null; out: string }> {
  return new Promise(resolve => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let out = ''
    child.stdout.on('data', chunk => (out += chunk))
    child.stderr.on('data', chunk => (out += chunk))
    const timer = setTimeout(() => {
      out += `\n[walkthrough] still running after ${limitMs} ms: stopped\n`
      process.kill(-child.pid!, 'SIGKILL')
    }, limitMs)
    child.on('close', code => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

/**
 * The answer `relaypay call` printed in a step: its pretty JSON, from a line "{" to a line "}". The daemon started
 * in the background writes its log (one JSON object a line) to the same terminal, in between.
 */
function answerIn(step: string): any {
  const lines = step.split('\n')
  const start = lines.indexOf('{')
  const end = lines.indexOf('}', start)
  if (start === -1 || end === -1) throw new Error(`no answer in:\n${step}`)
  return JSON.parse(lines.slice(start, end + 1).join('\n'))
}

for (const version of lndVersionsToTest('docs/lnd-walkthrough.regtest')) {
  const test = suite(`docs/lnd.md walkthrough on LND ${version}`)
  test('runs as written: B pays alice, alice pays B through R, the audit is clean', async () => {
    const commands = walkthroughCommands(doc)
    assert.ok(commands[0].startsWith('npm run regtest -- up'), 'starts with the network')
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-walkthrough-'))
    const network = path.join(folder, 'network')
    // Free ports for the daemon and its embedded relay: the walkthrough runs beside others (one per LND version).
    const env = {
      ...process.env,
      RELAYPAY_TEST_REGTEST_DIR: network,
      RELAYPAY_TEST_REGTEST_LND: version,
      RELAYPAY_HTTP_PORT: '0',
      RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0',
    }
    // Each step's output follows a marker line, so that the steps can be told apart afterwards.
    const script = commands.map((line, i) => `echo "::step ${i}::"\n${asThisBuild(line)}`).join('\n')
    try {
      const { code, out } = await runScript(script, folder, env)
      const steps = out.split(/^::step \d+::$/m).slice(1)
      assert.is(code, 0, `the walkthrough failed:\n${out.slice(0, 3000)}\n…\n${out.slice(-3000)}`)
      assert.is(steps.length, commands.length)
      const balances = commands
        .map((line, i) => (line.includes('call GetAppUser') ? answerIn(steps[i]!).info.balance : undefined))
        .filter(balance => balance !== undefined)
      assert.is(balances[0], 20_000, 'alice is credited what B paid')
      const paid = commands.findIndex(line => line.includes('call PayAppUserInvoice'))
      const serviceFee = answerIn(steps[paid]!).service_fee
      assert.ok(serviceFee > 0)
      assert.is(balances[1], 20_000 - 5_000 - serviceFee, 'alice paid 5,000 sats and the service fee')
      const audited = commands.findIndex(line => line.includes('relaypay audit'))
      assert.match(steps[audited]!, /^audit clean$/m)
    } finally {
      await runScript(`${regtestCli} down --remove`, folder, env)
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })
  test.run()
}
