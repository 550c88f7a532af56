#!/usr/bin/env -S node --max-semi-space-size=2
// The relaypay command: run the daemon, prepare a data dir, call any operation, print the docs.
import { Command, InvalidArgumentError } from 'commander'
import { versionLine } from '../src/version/index.js'
// Commands load their modules when they run, so `--help` does not build the whole daemon.

const program = new Command()
program
  .name('relaypay')
  .description('A relay-native Lightning payments daemon, wire-compatible with Lightning.Pub.')
  .showHelpAfterError()
  // Not commander's .version(string): that would read the commit (a git process) on every command, start included.
  .option('-V, --version', 'print the package version and, in a git checkout, the commit')
  .on('option:version', () => {
    process.stdout.write(`${versionLine()}\n`)
    process.exit(0)
  })
  .addHelpText(
    'after',
    `
Examples:
  relaypay start                                  run offline: embedded node and relay, data in ./data
  relaypay relay --port 7447                      run only the embedded relay
  relaypay models list                            transcription models: downloaded, available, default
  relaypay models default base.en                 set the default model for future recordings
  relaypay models download base.en                fetch a transcription model, with a progress bar
  relaypay start --config relaypay.toml --http-port 8080
  relaypay init --data-dir /var/lib/relaypay      write a config and secrets, then edit the config
  relaypay call Health
  relaypay call AddApp '{"name":"shop","allow_user_creation":false}'
  relaypay call GetUserInfo --token <user token>
  relaypay call NodeGetInfo '{"nodeId":0}' --relay  over the relay as the operator key (enrolls it the first time)
  relaypay audit --data-dir /var/lib/relaypay     balances against the journal; exit 1 on a mismatch
  relaypay --version                              the package version and, in a git checkout, the commit
  relaypay backup /backups/relaypay.tar.gz --data-dir /var/lib/relaypay   while the daemon runs
  relaypay restore /backups/relaypay.tar.gz /var/lib/relaypay-restored    into an empty data dir`,
  )

const port = (value: string) => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number 0–65535')
  return n
}

program
  .command('start')
  .description('run the daemon (SIGHUP reloads the config; stops cleanly on SIGINT/SIGTERM)')
  .option('--config <file>', 'TOML config file (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .option('--http-host <host>', 'HTTP listen address (default 127.0.0.1)')
  .option('--http-port <port>', 'HTTP port (default 1776; 0 picks a free one)', port)
  .action(async opts => (await import('../src/cli/start.js')).runStart(opts))

program
  .command('init')
  .description('write a config file and fresh secrets into the data directory')
  .option('--data-dir <dir>', 'data directory (default ./data)', './data')
  .option('--force', 'overwrite an existing config file')
  .action(async opts => (await import('../src/cli/init.js')).runInit(opts))

program
  .command('call')
  .description('call any catalogue operation over HTTP (or over the relay with --relay) and print the answer')
  .argument('<operation>', 'operation name, e.g. NodeGetInfo')
  .argument('[json]', 'input as JSON (body fields, query and path parameters)', '{}')
  .option('--url <url>', 'daemon URL (default: the running daemon of --data-dir)')
  .option('--token <token>', 'authorization token (default: the admin token of --data-dir)')
  .option('--api-key <key>', 'wallet key for host and extension routes')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .option('--relay', 'call over the relay (kind 21000) as the operator key instead of over HTTP')
  .option('--key <hex>', 'with --relay: the secret key to sign with (default: <data-dir>/operator.key)')
  .option('--timeout <seconds>', 'with --relay: how long to wait for the reply', Number, 30)
  .addHelpText(
    'after',
    `
Over the relay (--relay) the request goes to the default app key and relays named in <data-dir>/app.nprofile,
signed with --key or with the key in <data-dir>/operator.key (64 hex, mode 0600). While no admin is enrolled
(the daemon keeps <data-dir>/admin.enroll), the first --relay call without a key generates one, enrolls it as the
admin with EnrollAdminToken, and saves it to operator.key; later calls use it. Admin and metrics operations over
the relay need the enrolled key; user operations run as that key's own account.`,
  )
  .action(async (operation, json, opts) => (await import('../src/cli/call.js')).runCall(operation, json, opts))

program
  .command('audit')
  .description('check every balance against the journal and the conservation of money, where the config keeps the books (exit 1 on a mismatch)')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .option('--store-url <url>', 'audit this PostgreSQL database (postgres://…), e.g. one written by relaypay store copy')
  .option('--json', 'print the full report as JSON')
  .action(async opts => (await import('../src/cli/audit.js')).runAudit(opts))

const store = program.command('store').description('the database')
store
  .command('copy')
  .description('copy an installation from its SQLite database into a new PostgreSQL database, then check both agree')
  .option('--from <dir>', 'the data directory (its daemon stopped; default: the configured data dir)')
  .option('--to <url>', 'a new, empty PostgreSQL database: postgres://user@host:port/db (default: the configured [store] url)')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .option('--json', 'print what was copied and both audits as JSON')
  .action(async opts => (await import('../src/cli/store.js')).runStoreCopy(opts))

program
  .command('backup')
  .description('write a consistent snapshot of the data dir (databases, secrets, config) into one archive, while the daemon runs')
  .argument('<archive>', 'the archive to write (a new file, mode 0600: it holds the secrets), e.g. relaypay-backup.tar.gz')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .option('--json', 'print the manifest as JSON')
  .action(async (archive, opts) => (await import('../src/cli/backup.js')).runBackup(archive, opts))

program
  .command('restore')
  .description('check every checksum of a backup archive and unpack it into a new or empty data dir')
  .argument('<archive>', 'an archive written by relaypay backup')
  .argument('<data-dir>', 'the data directory to restore into (must not exist or be empty)')
  .option('--json', 'print the manifest as JSON')
  .action(async (archive, dataDir, opts) => (await import('../src/cli/backup.js')).runRestore(archive, dataDir, opts))

program
  .command('relay')
  .description('run only the embedded Nostr relay (NIP-01, 09, 11, 40)')
  .option('--data-dir <dir>', 'data directory for relay.sqlite (default ./data)', './data')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .option('--port <port>', 'port', port, 7447)
  .action(async opts => (await import('../src/cli/relay.js')).runRelay(opts))

const models = program.command('models').description('the transcription model registry')
models
  .command('list')
  .description('list the supported models: params, memory, speed, downloaded, available, default')
  .option('--json', 'print the answer as JSON instead of a table')
  .option('--url <url>', 'daemon URL (default: the running daemon of --data-dir)')
  .option('--token <token>', 'admin or user token (default: the admin token of --data-dir)')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .action(async opts => (await import('../src/cli/models.js')).runModelsList(opts))
models
  .command('default')
  .description('print the global default model; with a name, set it first (affects future recordings only)')
  .argument('[name]', 'model name, e.g. base.en')
  .option('--url <url>', 'daemon URL (default: the running daemon of --data-dir)')
  .option('--token <token>', 'admin or user token (default: the admin token of --data-dir)')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .action(async (name, opts) => (await import('../src/cli/models.js')).runModelsDefault(name, opts))
models
  .command('download')
  .description('download a model into the cache of the running daemon, with a progress bar')
  .argument('<name>', 'model name, e.g. base.en')
  .option('--url <url>', 'daemon URL (default: the running daemon of --data-dir)')
  .option('--token <token>', 'admin or user token (default: the admin token of --data-dir)')
  .option('--config <file>', 'TOML config file, as for start (default: <data-dir>/relaypay.toml if present)')
  .option('--data-dir <dir>', 'data directory (default ./data)')
  .action(async (name, opts) => (await import('../src/cli/models.js')).runModelsDownload(name, opts))

program
  .command('version')
  .description('print the package version and, in a git checkout, the commit (as --version)')
  .action(() => void process.stdout.write(`${versionLine()}\n`))

program
  .command('docs')
  .description('print the operations reference (docs/operations.md) generated from the catalogue')
  .option('--openapi', 'print the HTTP API as an OpenAPI 3.1 document (JSON) instead, as GET /api/openapi.json serves it')
  .action(async (opts: { openapi?: boolean }) => {
    const docs = await import('../src/cli/docs.js')
    process.stdout.write(opts.openapi ? `${JSON.stringify(docs.openApi(), null, 2)}\n` : docs.operationsReference())
  })

await program.parseAsync(process.argv)
