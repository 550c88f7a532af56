// The rooms of the house and their layers, as docs/architecture.md draws them: which room a file belongs to, each
// room's door, and which layer each room stands on.
import type { Plan } from './import-graph.js'

/** From the bottom up; a room may import rooms of its own layer or below. */
export const layers: { name: string; rooms: string[] }[] = [
  { name: 'store and config', rooms: ['schema', 'src/store', 'src/config', 'src/version', 'src/threads', 'src/daemon-files.ts', 'src/limits', 'src/units', 'src/logging', 'src/nostr-kinds', 'src/inline-page', 'src/vendor'] },
  { name: 'bus', rooms: ['src/bus', 'src/auth'] },
  { name: 'node and codecs', rooms: ['src/node', 'src/nostr-codecs', 'src/nostr-crypto'] },
  {
    name: 'domains',
    rooms: [
      'src/wallet', 'src/clink', 'src/lnurl', 'src/nwc', 'src/linking', 'src/swaps', 'src/rates', 'src/metrics',
      'src/models', 'src/health', 'src/callbacks', 'src/host-api', 'src/webrtc', 'src/backup',
      'src/extensions', 'src/extensions/host', 'src/extensions/payroll', 'src/extensions/restaurant', 'src/api-docs', 'src/wallet-page',
    ],
  },
  {
    name: 'transports',
    rooms: ['src/transports/http', 'src/transports/nostr', 'src/transports/nostr-client', 'src/relay', 'src/console'],
  },
  { name: 'composition root', rooms: ['src/daemon.ts'] },
  { name: 'command line', rooms: ['src/cli'] },
]

/** The lists of extensions in src/extensions/ that the ground reads (the config schema, the catalogue)… */
export const groundLists = ['descriptors.ts', 'operations.ts']
/** …the one the console's pages are read from, and the one the composition root starts (the extensions' room). */
export const consoleLists = ['console.ts']
export const domainLists = ['index.ts']

function roomOf(file: string): string {
  const parts = file.split('/')
  // The command line is one room: bin/relaypay.ts parses the words, src/cli/ holds the commands.
  if (parts[0] === 'bin') return 'src/cli'
  if (parts[0] !== 'src') return parts[0]!
  // The composition root's private parts: src/daemon.ts builds the daemon from them.
  if (parts[1] === 'lifecycle') return 'src/daemon.ts'
  if (parts.length === 2) return file
  // A room's contract/ (its catalogue entries and the messages only it uses; an extension's descriptor too) is
  // declarations only and belongs to the catalogue's room, on the ground (docs/architecture.md, "The catalogue"):
  // the catalogue reads it, and the room's own code imports it like any room imports the catalogue.
  const nested = parts[1] === 'transports' || parts[1] === 'extensions'
  if (parts[nested ? 3 : 2] === 'contract') return 'schema'
  // An extension's folder spans three floors (docs/architecture.md, "Extensions"): its contract, with the lists the
  // ground reads; its console pages (console/), the console's, with the list the console reads; the rest its own room.
  if (parts[1] === 'extensions') {
    if (groundLists.includes(parts[2]!)) return 'schema'
    if (parts[3] === 'console' || consoleLists.includes(parts[2]!)) return 'src/console'
  }
  // Transports and extensions are folders of rooms.
  if ((parts[1] === 'transports' || parts[1] === 'extensions') && parts.length > 3) return parts.slice(0, 3).join('/')
  return parts.slice(0, 2).join('/')
}

export const plan: Plan = {
  roomOf,
  isDoor(room, file) {
    // The catalogue (schema/) is one table read entry by entry; a one-file room is its own door. src/vendor is a
    // shelf of packages, one file each, bundled apart: each file is a door, so a process loads only what it uses.
    if (room === 'schema' || room === 'src/vendor' || room === file) return true
    return file === `${room}/index.ts` || file === `${room}/index.tsx`
  },
  layerOf(room) {
    const layer = layers.findIndex(l => l.rooms.includes(room))
    if (layer < 0) throw new Error(`room ${room} is in no layer: place it in the table above and in docs/architecture.md`)
    return layer
  },
  layerName: layer => layers[layer]!.name,
}
