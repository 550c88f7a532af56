// `relaypay init`: a data directory with a config file and fresh secrets, ready for `relaypay start`.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureSecret } from '../config/index.js'
import { ensureDataDir } from '../store/index.js'
import { adminTokenFile } from '../daemon-files.js'

// The example at the package root documents every key: the core's and each extension's sections, assembled from their
// fragments when the repository changes (scripts/assemble-config-example.mjs), so init copies one finished file.
const exampleConfig = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../config.example.toml')

export function runInit(opts: { dataDir: string; force?: boolean }): void {
  const dataDir = path.resolve(opts.dataDir)
  ensureDataDir(dataDir)
  const configFile = path.join(dataDir, 'relaypay.toml')
  if (fs.existsSync(configFile) && !opts.force) {
    process.stderr.write(`relaypay: ${configFile} exists; use --force to overwrite it\n`)
    process.exit(1)
  }
  const example = fs.readFileSync(exampleConfig, 'utf8')
  // "." is this folder, wherever the config is read from (relative paths in a config file are the file's): a copy
  // or a restore of the data dir never names the original one.
  fs.writeFileSync(configFile, example.replace(/^data_dir = .*$/m, 'data_dir = "."'), {
    mode: 0o600,
  })
  ensureSecret(path.join(dataDir, adminTokenFile))
  ensureSecret(path.join(dataDir, '.jwt_secret'))
  process.stdout.write(
    `wrote ${configFile}\n` +
      `the admin token is in ${path.join(dataDir, adminTokenFile)} (keep it secret)\n` +
      `start with: relaypay start --data-dir ${dataDir}\n`,
  )
}
