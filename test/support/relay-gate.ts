// A TCP gate in front of a relay, on loopback: the daemon is told the gate's URL, so a test can take the relay away
// from the daemon (the gate cuts its connections and refuses new ones) and give it back on the same port, while the
// test itself keeps talking to the relay directly. It also counts the connections open through it: how many
// connections the daemon holds to that relay.
import net from 'node:net'
import { freePort } from './ports.js'

export interface RelayGate {
  /** The relay's URL through the gate (what the daemon is configured with). */
  url: string
  /** Connections open through the gate now. */
  open(): number
  /** Cuts every connection and refuses new ones until `reopen`. */
  shut(): Promise<void>
  reopen(): Promise<void>
  close(): Promise<void>
}

export async function startRelayGate(relayUrl: string): Promise<RelayGate> {
  const target = new URL(relayUrl)
  const port = await freePort()
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const listening = net.createServer(client => {
        const upstream = net.connect(Number(target.port), target.hostname)
        sockets.add(client)
        sockets.add(upstream)
        const end = () => {
          sockets.delete(client)
          sockets.delete(upstream)
          client.destroy()
          upstream.destroy()
        }
        client.on('error', end).on('close', end)
        upstream.on('error', end).on('close', end)
        client.pipe(upstream).pipe(client)
      })
      listening.once('error', reject)
      listening.listen(port, '127.0.0.1', () => resolve())
      server = listening
    })

  const shut = async () => {
    const closing = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    if (closing) await new Promise<void>(resolve => closing.close(() => resolve()))
  }

  await listen()
  return {
    url: `ws://127.0.0.1:${port}`,
    // Each connection is two sockets: the daemon's and the one to the relay.
    open: () => sockets.size / 2,
    shut,
    reopen: listen,
    close: shut,
  }
}
