// The user's operations on their NWC connections (contract/operations.ts). A connection gets two fresh key
// pairs: the service key we answer on, and the client key whose secret goes out once in the connection URI.
import { bytesToHex } from '@noble/hashes/utils.js'
import { getPublicKey } from 'nostr-tools/pure'
import { OperationError, type HandlerTable, type Clock } from '../../bus/index.js'
import { walletLinkRefusal } from '../../auth/index.js'
import { unixSeconds } from '../../units/index.js'
import { budgetWindowMs, type ConnectionRow, type NwcConnectionStore } from '../connection-store.js'
import type { ConnectionDirectory } from '../connection-directory.js'
import { methodsOf, nwcMethods } from '../methods.js'

export interface NwcHandlerDeps {
  store: NwcConnectionStore
  /** Every write goes through it, so the relay transport's view follows. */
  directory: ConnectionDirectory
  clock: Clock
  random(bytes: number): Uint8Array
  /** The daemon's relays, named in every connection URI. */
  relays: readonly string[]
  /** A connection was created or changed: the relay transport widens its subscription and publishes its info. */
  changed(connection: ConnectionRow): void
  /** Whether the wallet link with this id still opens its wallet (the wallet room keeps the links). */
  walletLinkLive(walletLinkId: string): Promise<boolean>
}

const maxNameLength = 200
const msatPerSat = 1000

export function nwcHandlers({ store, directory, clock, random, relays, changed, walletLinkLive }: NwcHandlerDeps): HandlerTable {
  const notFound = () => new OperationError('not_found', 'NWC connection not found')
  const view = async (connection: ConnectionRow) => ({
    connection_id: connection.id,
    name: connection.name,
    service_pubkey: connection.service_pubkey,
    client_pubkey: connection.client_pubkey,
    methods: methodsOf(connection),
    ...(connection.budget_msat !== null && connection.budget_interval !== null
      ? { budget: { amount_sats: connection.budget_msat / msatPerSat, interval: connection.budget_interval } }
      : {}),
    // Rounded up: a user reading the budget must never see less spent than was taken.
    spent_sats: Math.ceil((await store.spentMsat(connection, clock.now())) / msatPerSat),
    expires_at_unix: connection.expires_at === null ? 0 : unixSeconds(connection.expires_at),
    created_at_unix: unixSeconds(connection.created_at),
    revoked: connection.revoked_at !== null,
  })

  return {
    CreateNwcConnection: async (input, ctx) => {
      const now = clock.now()
      const serviceSecret = random(32)
      const clientSecret = random(32)
      const walletLinkId = ctx.caller.walletLinkId ?? null
      const connection = await directory.insert({
        id: bytesToHex(random(16)),
        user_id: ctx.caller.userId,
        name: checkedName(input.name),
        service_pubkey: getPublicKey(serviceSecret),
        service_secret: bytesToHex(serviceSecret),
        client_pubkey: getPublicKey(clientSecret),
        methods: checkedMethods(input.methods ?? [...nwcMethods]),
        ...budgetColumns(input.budget),
        expires_at: expiryColumn(input.expires_at_unix, now),
        created_at: now,
        wallet_link_id: walletLinkId,
      })
      // Made with a wallet link: the link's end ends this connection. A link is deleted before its connections are
      // ended, so either this read comes first and that ending finds the row stored above, or it
      // sees the link gone and the connection ends here, before anything is handed out.
      if (walletLinkId !== null && !(await walletLinkLive(walletLinkId))) {
        await directory.endWithLink(walletLinkId, clock.now())
        throw new OperationError('unauthenticated', walletLinkRefusal)
      }
      changed(connection)
      const uri = new URL(`nostr+walletconnect://${connection.service_pubkey}`)
      for (const relay of relays) uri.searchParams.append('relay', relay)
      uri.searchParams.set('secret', bytesToHex(clientSecret))
      return { connection: await view(connection), connection_uri: uri.toString() }
    },

    ListNwcConnections: async (_input, ctx) => ({
      connections: await Promise.all((await store.ofUser(ctx.caller.userId)).map(view)),
    }),

    UpdateNwcConnection: async (input, ctx) => {
      if (input.remove_budget && input.budget) throw new OperationError('invalid_input', 'give a budget or remove_budget, not both')
      // Applied to the row as it is inside the update's transaction: a revocation or another change committed
      // meanwhile is seen, not overwritten.
      const updated = await directory.update(input.connection_id, ctx.caller.userId, {
        ...(input.name !== undefined ? { name: checkedName(input.name) } : {}),
        ...(input.methods !== undefined ? { methods: checkedMethods(input.methods) } : {}),
        ...(input.budget !== undefined ? budgetColumns(input.budget) : {}),
        ...(input.remove_budget ? { budget_msat: null, budget_interval: null } : {}),
        ...(input.expires_at_unix !== undefined ? { expires_at: expiryColumn(input.expires_at_unix, clock.now()) } : {}),
      })
      if (updated.status === 'not_found') throw notFound()
      if (updated.status === 'revoked') throw new OperationError('conflict', 'the NWC connection was revoked')
      changed(updated.row)
      return view(updated.row)
    },

    RevokeNwcConnection: async (input, ctx) => {
      const connection = await store.byId(input.connection_id)
      if (!connection || connection.user_id !== ctx.caller.userId) throw notFound() // the owner never changes
      await directory.revoke(connection.id, clock.now()) // revoking twice is not an error: the connection is revoked either way
      return {}
    },
  }
}

function checkedName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length === 0 || trimmed.length > maxNameLength) {
    throw new OperationError('invalid_input', `name must be 1 to ${maxNameLength} characters`)
  }
  return trimmed
}

function checkedMethods(methods: readonly string[]): string {
  if (methods.length === 0) throw new OperationError('invalid_input', 'a connection needs at least one method')
  return [...new Set(methods)].join(' ')
}

function budgetColumns(budget: { amount_sats: number; interval: 'DAY' | 'WEEK' | 'MONTH' } | undefined) {
  if (budget === undefined) return { budget_msat: null, budget_interval: null }
  if (!Number.isSafeInteger(budget.amount_sats * msatPerSat) || budget.amount_sats <= 0) {
    throw new OperationError('invalid_input', 'budget amount_sats must be a positive integer')
  }
  if (!(budget.interval in budgetWindowMs)) throw new OperationError('invalid_input', 'unknown budget interval')
  return { budget_msat: budget.amount_sats * msatPerSat, budget_interval: budget.interval }
}

/** 0 or absent: never expires. A date already past is refused: the connection would be dead on arrival. */
function expiryColumn(expiresAtUnix: number | undefined, nowMs: number): number | null {
  if (expiresAtUnix === undefined || expiresAtUnix === 0) return null
  if (!Number.isSafeInteger(expiresAtUnix) || expiresAtUnix * 1000 <= nowMs) {
    throw new OperationError('invalid_input', 'expires_at_unix must be in the future')
  }
  return expiresAtUnix * 1000
}
