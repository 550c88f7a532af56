// Wallet keys of the wallet host: `X-Api-Key` header or `api-key` query parameter,
// with the host's exact error texts and status codes.
import { OperationError, type Caller } from '../bus/index.js'
import type { Credentials } from './credentials.js'
import type { AccountDirectory } from './directory.js'

export type WalletCaller = Extract<Caller, { kind: 'wallet' }>

export async function authenticateWalletKey(
  creds: Credentials,
  need: 'invoice' | 'admin',
  directory: AccountDirectory,
): Promise<WalletCaller> {
  if (!creds.apiKey) throw new OperationError('unauthenticated', 'No Api Key provided.', { status: 401 })
  const owner = await walletForKey(creds.apiKey, directory)
  if (need === 'admin' && owner.keyType !== 'admin') {
    throw new OperationError('forbidden', 'Invalid adminkey.', { status: 403 })
  }
  return owner
}

export async function walletForKey(key: string, directory: AccountDirectory): Promise<WalletCaller> {
  const owner = await directory.walletByKey(key)
  if (!owner) throw new OperationError('not_found', 'Wallet not found.', { status: 404 })
  return { kind: 'wallet', ...owner }
}
