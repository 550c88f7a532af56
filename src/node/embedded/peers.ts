// Simulated peers of the embedded node: AddPeer records a connection that never goes anywhere, so that
// OpenChannel has someone to open to and ListPeers shows what the operator did.
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { AddPeerRequest, NodePeer } from '../lightning-node.js'

/** A node id: a compressed secp256k1 public key in hex. */
export function assertNodePubkey(pubkey: string, what = 'pubkey'): void {
  const valid = /^0[23][0-9a-fA-F]{64}$/.test(pubkey) && secp256k1.utils.isValidPublicKey(hexToBytes(pubkey), true)
  if (!valid) throw new OperationError('invalid_input', `${what} must be a compressed secp256k1 public key in hex`)
}

export type PeerList = ReturnType<typeof peerList>

export function peerList({ db, ownPubkey, clock }: { db: Db; ownPubkey: string; clock: Clock }) {
  const insert = db.prepare(`INSERT INTO node_peers (pubkey, host, port, connected_at)
                             VALUES (@pubkey, @host, @port, @connectedAt)
                             ON CONFLICT (pubkey) DO UPDATE SET host = excluded.host, port = excluded.port`)
  const all = db.prepare('SELECT * FROM node_peers ORDER BY connected_at, pubkey')
  const one = db.prepare('SELECT 1 FROM node_peers WHERE pubkey = ?')
  const count = db.prepare('SELECT COUNT(*) AS n FROM node_peers')

  return {
    /** Connecting to a connected peer again is a no-op apart from a changed address. */
    add(request: AddPeerRequest): void {
      assertNodePubkey(request.pubkey)
      const pubkey = request.pubkey.toLowerCase()
      // LND's wording (server.ConnectToPeer).
      if (pubkey === ownPubkey) throw new OperationError('invalid_input', 'cannot make connection to self')
      if (request.host.trim() === '') throw new OperationError('invalid_input', 'host must not be empty')
      if (!Number.isSafeInteger(request.port) || request.port < 1 || request.port > 65535) {
        throw new OperationError('invalid_input', 'port must be between 1 and 65535')
      }
      insert.run({ pubkey, host: request.host.trim(), port: request.port, connectedAt: clock.now() })
    },

    list(): NodePeer[] {
      return (all.all() as { pubkey: string; host: string; port: number; connected_at: number }[]).map(row => ({
        pubkey: row.pubkey,
        address: row.host.includes(':') ? `[${row.host}]:${row.port}` : `${row.host}:${row.port}`,
        inbound: false,
        connectedAt: row.connected_at,
      }))
    },

    isConnected(pubkey: string): boolean {
      return one.get(pubkey.toLowerCase()) !== undefined
    },

    count(): number {
      return (count.get() as { n: number }).n
    },
  }
}
