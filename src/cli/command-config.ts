// The configuration of a command other than `start`: the same file and environment `start` reads (the file named by
// --config, else <data dir>/relaypay.toml; then RELAYPAY_* variables; then the command's flags), so that a command
// sees the installation the daemon serves: its data dir, and its books in PostgreSQL when `[store] url` names them.
// A config that does not load is said the way `start` says it, and the command exits 1.
import path from 'node:path'
import type { Config } from '../config/index.js'

export interface CommandConfigOptions {
  config?: string
  dataDir?: string
}

export async function commandConfig(opts: CommandConfigOptions): Promise<Config & { data_dir: string }> {
  const { loadConfig, ConfigError } = await import('../config/index.js')
  try {
    const config = loadConfig({ file: opts.config, flags: { data_dir: opts.dataDir } })
    return { ...config, data_dir: path.resolve(config.data_dir) }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    for (const problem of err.problems) process.stderr.write(`relaypay: ${problem}\n`)
    process.exit(1)
  }
}
