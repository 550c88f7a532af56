// npm run regtest -- <command>: a regtest Lightning network on this machine, for the real-LND tests and for trying
// relaypay against LND by hand.
//   build [--lnd VERSION|all]    build btcd, btcctl, lnd and lncli into the cache folder when missing
//   up [--lnd VERSION] [--dir D] [--a-db bbolt|sqlite]  start btcd and LND nodes A, R and B, fund them, open A→R and R→B, print settings
//   status [--dir D]             what runs, the block height, each node's channels and balance
//   env [--dir D]                the settings for relaypay as shell lines: eval "$(npm run --silent regtest -- env)"
//   lncli A|R|B <command…>       lncli against one node, e.g. lncli B payinvoice --force <invoice>
//   btcctl <command…>            btcctl against the network's btcd, e.g. btcctl generate 6
//   down [--dir D] [--remove]    stop what `up` started, by pid; --remove deletes the network's folder too
import path from 'node:path'
import { Command, Option } from 'commander'
import { cacheRoot, ensureBinaries, lndVersions } from './binaries.js'
import { blockHeight, btcctl, down, isRunning, lncli, nodeNames, readState, up, type NetworkState, type NodeDatabase, type NodeName } from './network.js'
import { running } from './processes.js'

/** RELAYPAY_TEST_REGTEST_DIR, else a folder per LND version in the cache. */
const defaultDir = (lndVersion: string) => process.env.RELAYPAY_TEST_REGTEST_DIR ?? path.join(cacheRoot(), 'networks', lndVersion)
const log = (line: string) => process.stderr.write(`regtest: ${line}\n`)

/** The settings relaypay needs for A, as shell lines that `eval` takes (the config file form in comments). */
export function relaypaySettings(state: NetworkState): string {
  const a = state.nodes.A
  return [
    `# relaypay's node is A (LND ${state.lndVersion}); eval "$(npm run --silent regtest -- env)" sets these:`,
    `export RELAYPAY_NODE_BACKEND=lnd`,
    `export RELAYPAY_NODE_NETWORK=regtest`,
    `export RELAYPAY_NODE_LND_SOCKET=${a.rpc}`,
    `export RELAYPAY_NODE_LND_CERT_PATH=${a.cert}`,
    `export RELAYPAY_NODE_LND_MACAROON_PATH=${a.macaroon}`,
    `# or in relaypay.toml:`,
    `#   [node]`,
    `#   backend = "lnd"`,
    `#   network = "regtest"`,
    `#   lnd_socket = "${a.rpc}"`,
    `#   lnd_cert_path = "${a.cert}"`,
    `#   lnd_macaroon_path = "${a.macaroon}"`,
    `# the nodes (npm run regtest -- lncli A|R|B <command>):`,
    ...nodeNames.map(name => {
      const n = state.nodes[name]
      return `#   ${name}: rpc ${n.rpc}, p2p ${n.p2p}, pubkey ${n.pubkey}, dir ${n.dir}`
    }),
    `#   btcd: rpc ${state.btcd.rpc} (npm run regtest -- btcctl <command>, e.g. generate 1)`,
  ].join('\n')
}

function stateOf(dir: string): NetworkState {
  const state = readState(dir)
  if (!state) {
    log(`no regtest network in ${dir} (start one with: npm run regtest -- up)`)
    process.exit(1)
  }
  return state
}

const program = new Command()
program.enablePositionalOptions().name('npm run regtest --').description('A regtest Lightning network (btcd, LND nodes A, R and B) on loopback.')
/** The LND version of a command that names none: RELAYPAY_TEST_REGTEST_LND, else the newest. */
const lndOption = () => new Option('--lnd <version>', 'LND version').choices([...lndVersions]).default(process.env.RELAYPAY_TEST_REGTEST_LND ?? lndVersions[0])
const dirOption = () => new Option('--dir <dir>', `the network's folder (default: ${path.join(cacheRoot(), 'networks', '<version>')})`)

program
  .command('build')
  .description('build btcd, btcctl, lnd and lncli into the cache folder where missing')
  .addOption(new Option('--lnd <version>', 'LND version, or all').choices([...lndVersions, 'all']).default('all'))
  .action(async ({ lnd }: { lnd: string }) => {
    for (const version of lnd === 'all' ? lndVersions : [lnd]) {
      const found = await ensureBinaries(version, log)
      log(`LND ${version}: ${path.dirname(found.lnd)}; btcd: ${path.dirname(found.btcd)}`)
    }
  })

program
  .command('up')
  .description('start a funded network with channels A→R and R→B and print the settings relaypay needs')
  .addOption(lndOption())
  .addOption(dirOption())
  .addOption(new Option('--a-db <database>', "where A keeps its data: bbolt, or sqlite with LND's native SQL tables").choices(['bbolt', 'sqlite']).default('bbolt'))
  .action(async ({ lnd, dir, aDb }: { lnd: string; dir?: string; aDb: NodeDatabase }) => {
    const started = Date.now()
    const state = await up({ dir: path.resolve(dir ?? defaultDir(lnd)), lndVersion: lnd, aDatabase: aDb, detached: true, log })
    log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    process.stdout.write(`${relaypaySettings(state)}\n`)
  })

program
  .command('env')
  .description('print the settings relaypay needs for a running network')
  .addOption(lndOption())
  .addOption(dirOption())
  .action(({ lnd, dir }: { lnd: string; dir?: string }) => {
    process.stdout.write(`${relaypaySettings(stateOf(path.resolve(dir ?? defaultDir(lnd))))}\n`)
  })

program
  .command('status')
  .description("what runs, the block height, each node's channels and balances")
  .addOption(lndOption())
  .addOption(dirOption())
  .action(async ({ lnd, dir }: { lnd: string; dir?: string }) => {
    const state = stateOf(path.resolve(dir ?? defaultDir(lnd)))
    const lines = [`network in ${state.dir}, LND ${state.lndVersion}`]
    lines.push(`btcd ${state.btcd.rpc} pid ${state.btcd.process.pid}: ${running(state.btcd.process) ? `running, height ${await blockHeight(state).catch(() => '?')}` : 'stopped'}`)
    for (const name of nodeNames) {
      const node = state.nodes[name]
      if (!running(node.process)) {
        lines.push(`${name} ${node.rpc} pid ${node.process.pid}: stopped`)
        continue
      }
      try {
        const info = await lncli(state, name, ['getinfo'])
        const { channels } = await lncli<{ channels: { active: boolean; local_balance: string; remote_balance: string }[] }>(state, name, ['listchannels'])
        const wallet = await lncli<{ confirmed_balance: string }>(state, name, ['walletbalance'])
        const described = channels.map(c => `${c.active ? 'active' : 'inactive'} ${c.local_balance}/${c.remote_balance}`).join(', ')
        lines.push(`${name} ${node.rpc} pid ${node.process.pid}: synced ${info.synced_to_chain}, height ${info.block_height}, chain ${wallet.confirmed_balance} sats, channels [${described}]`)
      } catch (err) {
        lines.push(`${name} ${node.rpc} pid ${node.process.pid}: running, not answering (${(err as Error).message.split('\n')[0]})`)
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`)
    if (!isRunning(state)) process.exitCode = 1
  })

program
  .command('lncli')
  .description('run lncli against node A, R or B of a running network, e.g. lncli B payinvoice --force <invoice>')
  .argument('<node>', 'A, R or B')
  .argument('[args...]', 'the lncli command and its arguments')
  .addOption(lndOption())
  .addOption(dirOption())
  .passThroughOptions()
  .action(async (name: string, args: string[], { lnd, dir }: { lnd: string; dir?: string }) => {
    if (!(nodeNames as readonly string[]).includes(name)) throw new Error(`no node ${name}: A, R or B`)
    const answer = await lncli(stateOf(path.resolve(dir ?? defaultDir(lnd))), name as NodeName, args, { raw: true })
    process.stdout.write(answer)
  })

program
  .command('btcctl')
  .description("run btcctl against the network's btcd, e.g. btcctl generate 6")
  .argument('[args...]', 'the btcctl command and its arguments')
  .addOption(lndOption())
  .addOption(dirOption())
  .passThroughOptions()
  .action(async (args: string[], { lnd, dir }: { lnd: string; dir?: string }) => {
    process.stdout.write(await btcctl(stateOf(path.resolve(dir ?? defaultDir(lnd))), args))
  })

program
  .command('down')
  .description('stop what up started, by pid')
  .addOption(lndOption())
  .addOption(dirOption())
  .option('--remove', "delete the network's folder too")
  .action(async ({ lnd, dir, remove }: { lnd: string; dir?: string; remove?: boolean }) => {
    const where = path.resolve(dir ?? defaultDir(lnd))
    if (!(await down(where, { remove }))) log(`no regtest network in ${where}`)
    else log(`stopped the network in ${where}${remove ? ' and removed it' : ''}`)
  })

await program.parseAsync(process.argv).catch((err: Error) => {
  log(err.message)
  process.exit(1)
})
