// The linking room: which relay key is the operator, which key belongs to which app user (linking tokens,
// invites), what a user's devices registered, the HTTP upgrade, and BatchUser.
import type { Logger } from 'pino'
import type { SqlStore } from '../store/index.js'
import type { Clock, HandlerTable } from '../bus/index.js'
import type { TokenSigner } from '../auth/index.js'
import type { NostrAccounts, WalletAccounts } from '../wallet/index.js'
import { linkingStore } from './linking-store.js'
import { adminEnrollment } from './admin-enrollment.js'
import { adminHandlers } from './handlers/admin.js'
import { npubLinkingHandlers } from './handlers/npub-linking.js'
import { inviteHandlers } from './handlers/invites.js'
import { deviceHandlers } from './handlers/devices.js'
import { httpCredsHandlers } from './handlers/http-creds.js'
import { batchHandlers, type BatchDeps } from './handlers/batch.js'

export { adminEnrollFile, adminConnectFile, type AdminEnrollment } from './admin-enrollment.js'
export { linkingTokenTtlMs } from './handlers/npub-linking.js'
export { maxBatchEntries } from './handlers/batch.js'

export interface LinkingDeps {
  sql: SqlStore
  accounts: WalletAccounts
  nostr: NostrAccounts
  tokens: TokenSigner
  clock: Clock
  random(bytes: number): Uint8Array
  log: Logger
  dataDir: string
  defaultAppId: string
  allowHttpUpgrade: boolean
  serviceUrl(): string
  dispatcher: BatchDeps['dispatcher']
}

/** Reads the enrolled admin key before it answers anything (the authenticator asks for it synchronously). */
export async function createLinking(deps: LinkingDeps) {
  const store = linkingStore(deps.sql)
  const enrollment = await adminEnrollment({ store, dataDir: deps.dataDir, clock: deps.clock, random: deps.random, log: deps.log })
  const handlers: HandlerTable = {
    ...adminHandlers({ enrollment, accounts: deps.accounts }),
    ...npubLinkingHandlers({ store, accounts: deps.accounts, nostr: deps.nostr, random: deps.random }),
    ...inviteHandlers({ store, nostr: deps.nostr, defaultAppId: deps.defaultAppId, random: deps.random }),
    ...deviceHandlers({ store }),
    ...httpCredsHandlers({ tokens: deps.tokens, allowUpgrade: deps.allowHttpUpgrade, serviceUrl: deps.serviceUrl }),
    ...batchHandlers({ dispatcher: deps.dispatcher, tokens: deps.tokens, accounts: deps.accounts }),
  }
  return {
    handlers,
    /** The enrolled operator key, read by the authenticator on every admin call over the relay. */
    adminPubkey: enrollment.adminPubkey,
    /** Writes admin.enroll / admin.connect while no admin is enrolled (call once the relays are known). */
    openEnrollment: enrollment.open,
  }
}

export type Linking = Awaited<ReturnType<typeof createLinking>>
