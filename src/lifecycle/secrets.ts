// The daemon's secrets: the admin token and the token signing secret, from the config or kept in the data dir
// (created on first start, mode 0600). The log names the file, never the value.
import path from 'node:path'
import type { Logger } from 'pino'
import { ensureSecret, type Config } from '../config/index.js'
import { createTokenSigner } from '../auth/index.js'
import { adminTokenFile } from '../daemon-files.js'

export function daemonSecrets(config: Config, dataDir: string, log: Logger) {
  const adminToken = config.auth.admin_token ?? secretFile(path.join(dataDir, adminTokenFile), log, 'admin token')
  const jwtSecret = config.auth.jwt_secret ?? secretFile(path.join(dataDir, '.jwt_secret'), log, 'token signing secret')
  return { adminToken, tokens: createTokenSigner(jwtSecret) }
}

function secretFile(file: string, log: Logger, what: string): string {
  const { value, created } = ensureSecret(file)
  if (created) log.info({ file }, `generated the ${what}`)
  return value
}
