// A WebSocket connection refused before the handshake: the relay answers the upgrade with an HTTP error (429 for an
// address over its connection rate or cap) and says why in the body, a NIP-01 reason. ws hands such an answer to an
// 'unexpected-response' listener instead of failing the socket, and leaves the listener to end the request.
import type { WebSocket } from 'ws'

/** What a refused upgrade answered: its HTTP status and its body. */
export interface HandshakeRefusal {
  status: number
  body: string
}

/**
 * Calls `refused` with the status and the whole body once the socket's upgrade is answered with an HTTP error, then
 * ends the request. Never called for a socket the relay lets in.
 */
export function onHandshakeRefusal(socket: WebSocket, refused: (refusal: HandshakeRefusal) => void): void {
  socket.once('unexpected-response', (req, res) => {
    let body = ''
    res.setEncoding('utf8')
    res.on('data', chunk => (body += chunk))
    res.on('end', () => {
      req.destroy()
      refused({ status: res.statusCode ?? 0, body })
    })
  })
}
