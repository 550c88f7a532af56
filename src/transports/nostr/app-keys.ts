// The app keys the daemon answers as. Every app has its own keypair; requests name the app in their first `p`
// tag and the reply is signed by the key that was addressed (docs/pub-protocol.md, "Nostr kinds").
import { hexToBytes } from '@noble/hashes/utils.js'
import type { AppKey, AppKeyring } from '../../nostr-codecs/index.js'

export interface AppKeyRow {
  id: string
  name: string
  nostr_public_key: string
  nostr_private_key: string
}

/** The keyring, loaded. Lookups answer from memory (the transport is hot); `refresh` reads the apps table again. */
export async function appKeyring(listApps: () => Promise<AppKeyRow[]>): Promise<AppKeyring> {
  let byPubkey = new Map<string, AppKey>()
  let byAppId = new Map<string, AppKey>()
  const read = async (): Promise<boolean> => {
    const rows = await listApps()
    const changed = rows.length !== byPubkey.size || rows.some(row => !byPubkey.has(row.nostr_public_key))
    if (!changed) return false
    const keys = rows.map(row => ({
      appId: row.id,
      name: row.name,
      pubkey: row.nostr_public_key,
      secretKey: hexToBytes(row.nostr_private_key),
    }))
    byPubkey = new Map(keys.map(key => [key.pubkey, key]))
    byAppId = new Map(keys.map(key => [key.appId, key]))
    return true
  }
  // One read at a time, in order: a read begun before an app was added never replaces the keys read after it.
  let loading: Promise<boolean> = read()
  await loading
  const load = (): Promise<boolean> => (loading = loading.then(read, read))
  return {
    byPubkey: pubkey => byPubkey.get(pubkey),
    byAppId: appId => byAppId.get(appId),
    all: () => [...byPubkey.values()],
    refresh: load,
  }
}
