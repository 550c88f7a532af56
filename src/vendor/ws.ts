// ws: the embedded relay's WebSocket server, and the client of outbound relays and of swap updates. Bundled into one
// file at build (docs/architecture.md, "Packages bundled at build").
export { WebSocket, WebSocketServer, type ClientOptions, type RawData } from 'ws'
