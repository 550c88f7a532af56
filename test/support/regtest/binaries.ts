// The binaries of a regtest network, built from their Go modules into a cache folder outside the repository and
// reused when present: btcd and btcctl from github.com/btcsuite/btcd, lnd and lncli from
// github.com/lightningnetwork/lnd, each pinned by version.
//
// btcd's go.mod has no replace lines, so `go install module@version` builds it. lnd's go.mod has three (xz, gogo
// protobuf and a hex-display fork of protobuf-go), and the go command refuses `go install` of a module that has
// any; so lnd is built as the main module: `go mod download` puts the tagged source in the read-only module cache
// (checked against the checksum database), a writable copy of it goes into the cache folder, and `go build` runs
// there. The build tags are the sub-servers relaypay calls (routerrpc is always in; walletrpc for fee bumps and
// publishing, chainrpc for address notifications, signrpc and peersrpc) and invoicesrpc, which the outside world of
// the tests needs for hold invoices. The release builds leave out the etcd and postgres kvdb tags, and so do we.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const btcdVersion = 'v0.24.2'
/**
 * The LND releases relaypay is tested on, newest first: the newest patch of each of the two latest lines that the
 * Go module proxy serves (v0.20.3-beta is refused there, so the 0.20 line is v0.20.2-beta).
 */
export const lndVersions = ['v0.21.2-beta', 'v0.20.2-beta'] as const
export type LndVersion = string

/**
 * kvdb_sqlite lets a node keep its data in SQLite with LND's native SQL invoice tables (`--db.backend=sqlite
 * --db.use-native-sql`), as release builds can: that store replays settlements in another order than bbolt's.
 */
const lndTags = 'signrpc walletrpc chainrpc invoicesrpc peersrpc kvdb_sqlite'
/** Written beside a finished build; binaries built with other tags are built again. */
const recipeFile = 'build.json'
const recipe = () => JSON.stringify({ tags: lndTags })

/** RELAYPAY_TEST_REGTEST_CACHE, else $XDG_CACHE_HOME/relaypay-regtest, else ~/.cache/relaypay-regtest. */
export function cacheRoot(): string {
  if (process.env.RELAYPAY_TEST_REGTEST_CACHE) return path.resolve(process.env.RELAYPAY_TEST_REGTEST_CACHE)
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(base, 'relaypay-regtest')
}

export interface Binaries {
  btcd: string
  btcctl: string
  lnd: string
  lncli: string
  lndVersion: LndVersion
}

const btcdDir = () => path.join(cacheRoot(), 'bin', `btcd-${btcdVersion}`)
const lndDir = (version: LndVersion) => path.join(cacheRoot(), 'bin', `lnd-${version}`)

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The cached binaries for one LND version, or undefined when any is missing (nothing is built). */
export function findBinaries(lndVersion: LndVersion): Binaries | undefined {
  const found: Binaries = {
    btcd: path.join(btcdDir(), 'btcd'),
    btcctl: path.join(btcdDir(), 'btcctl'),
    lnd: path.join(lndDir(lndVersion), 'lnd'),
    lncli: path.join(lndDir(lndVersion), 'lncli'),
    lndVersion,
  }
  return [found.btcd, found.btcctl, found.lnd, found.lncli].every(executable) && builtByThisRecipe(lndVersion) ? found : undefined
}

function builtByThisRecipe(lndVersion: LndVersion): boolean {
  try {
    return fs.readFileSync(path.join(lndDir(lndVersion), recipeFile), 'utf8') === recipe()
  } catch {
    return false
  }
}

/** The LND versions whose binaries (and btcd's) are in the cache. */
export function builtVersions(): LndVersion[] {
  return lndVersions.filter(version => findBinaries(version) !== undefined)
}

function go(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; log: (line: string) => void }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.RELAYPAY_TEST_GO ?? 'go', args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', chunk => (out += chunk))
    child.stderr.on('data', chunk => (err += chunk))
    child.on('error', error =>
      reject(new Error(`cannot run go (${error.message}): Go 1.24 or later must be on PATH, or RELAYPAY_TEST_GO name it`)),
    )
    child.on('close', code => {
      if (code === 0) return resolve(out)
      opts.log(err.trim())
      reject(new Error(`go ${args.slice(0, 2).join(' ')} failed with exit code ${code}`))
    })
  })
}

/** Builds into `<dir>.partial` and renames it into place, so a build cut short is never taken for a finished one. */
async function buildInto(dir: string, build: (partial: string) => Promise<void>): Promise<void> {
  const partial = `${dir}.partial`
  fs.rmSync(partial, { recursive: true, force: true })
  fs.mkdirSync(partial, { recursive: true })
  await build(partial)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.renameSync(partial, dir)
}

async function buildBtcd(log: (line: string) => void): Promise<void> {
  log(`building btcd and btcctl ${btcdVersion} (go install)`)
  await buildInto(btcdDir(), partial =>
    go(
      ['install', '-trimpath', '-ldflags=-s -w', `github.com/btcsuite/btcd@${btcdVersion}`, `github.com/btcsuite/btcd/cmd/btcctl@${btcdVersion}`],
      { env: { GOBIN: partial }, log },
    ).then(() => undefined),
  )
}

async function buildLnd(version: LndVersion, log: (line: string) => void): Promise<void> {
  const module = `github.com/lightningnetwork/lnd@${version}`
  log(`building lnd and lncli ${version} (go mod download, then go build in a copy)`)
  const downloaded = JSON.parse(await go(['mod', 'download', '-json', module], { log })) as { Dir?: string; Error?: string }
  if (!downloaded.Dir) throw new Error(`go mod download ${module}: ${downloaded.Error ?? 'no directory'}`)
  const source = path.join(cacheRoot(), 'src', `lnd-${version}`)
  fs.rmSync(source, { recursive: true, force: true })
  fs.mkdirSync(path.dirname(source), { recursive: true })
  fs.cpSync(downloaded.Dir, source, { recursive: true })
  // The module cache is read-only, and so is the copy: go build writes nothing in it, but a later rm must succeed.
  fs.chmodSync(source, 0o755)
  await buildInto(lndDir(version), async partial => {
    const ldflags = `-s -w -buildid= -X github.com/lightningnetwork/lnd/build.Commit=${version}`
    await go(['build', '-trimpath', `-tags=${lndTags}`, `-ldflags=${ldflags}`, '-o', `${partial}/`, './cmd/lnd', './cmd/lncli'], {
      cwd: source,
      log,
    })
    fs.writeFileSync(path.join(partial, recipeFile), recipe())
  })
  makeWritable(source)
  fs.rmSync(source, { recursive: true, force: true })
}

function makeWritable(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      fs.chmodSync(full, 0o755)
      makeWritable(full)
    }
  }
}

/** The binaries for `lndVersion`, building whatever is missing (minutes on a cold machine). */
export async function ensureBinaries(lndVersion: LndVersion, log: (line: string) => void = () => {}): Promise<Binaries> {
  const found = findBinaries(lndVersion)
  if (found) return found
  if (!executable(path.join(btcdDir(), 'btcd')) || !executable(path.join(btcdDir(), 'btcctl'))) await buildBtcd(log)
  if (!executable(path.join(lndDir(lndVersion), 'lnd')) || !executable(path.join(lndDir(lndVersion), 'lncli')) || !builtByThisRecipe(lndVersion)) {
    await buildLnd(lndVersion, log)
  }
  const built = findBinaries(lndVersion)
  if (!built) throw new Error(`the binaries for LND ${lndVersion} are still missing after the build`)
  return built
}
