// The configuration of a command other than `start`: the same file and environment `start` reads (the file named by
// --config, else <data dir>/relaypay.toml; then RELAYPAY_* variables; then the command's flags), so that a command
// sees the installation the daemon serves: its data dir, and its books in PostgreSQL when `[store] url` names them.
// A config that does not load is said the way `start` says it, and the command exits 1.
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../config/index.js'
import { adminTokenFile, daemonInfoFile } from '../daemon-files.js'

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

/**
 * Where the daemon of a configuration answers, and its admin token: the URL in its daemon.json while it runs, else
 * the configured HTTP address; `[auth] admin_token` when the configuration sets it, else the data dir's file.
 */
export async function daemonEndpoint(config: Config & { data_dir: string }): Promise<{ url: string; adminToken?: string }> {
  const { readSecret } = await import('../config/index.js')
  let url: string | undefined
  try {
    url = (JSON.parse(fs.readFileSync(path.join(config.data_dir, daemonInfoFile), 'utf8')) as { url?: string }).url
  } catch {
    // not running, or not yet serving
  }
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host
  return {
    url: url ?? `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${config.http.port}`,
    adminToken: config.auth.admin_token ?? readSecret(path.join(config.data_dir, adminTokenFile)),
  }
}
