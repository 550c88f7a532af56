// A free TCP port on loopback, for servers a test starts that cannot take port 0 themselves (PostgreSQL, LND, a
// daemon restarted on the port it had).
//
// Picked below the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default),
// never in it. A port in that range can be taken while its server is down by a client's own outgoing socket: a
// client that keeps reconnecting to 127.0.0.1:P may be handed P itself as its local port and connect to itself (TCP
// simultaneous open), and the server restarted on P then fails with "address already in use". A regtest LND
// restarted in a crash campaign did exactly that, its relaypay daemon reconnecting to it the whole time.
import fs from 'node:fs'
import net from 'node:net'

const lowest = 10_000

/** The first port of the ephemeral range, or undefined where it cannot be read. */
function ephemeralStart(): number | undefined {
  try {
    const first = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > 0 ? first : undefined
  } catch {
    return undefined
  }
}

const below = ephemeralStart()

function tryListen(port: number): Promise<number | undefined> {
  return new Promise(resolve => {
    const server = net.createServer()
    server.once('error', () => resolve(undefined))
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo
      server.close(() => resolve(bound))
    })
  })
}

export async function freePort(): Promise<number> {
  if (below !== undefined && below - lowest >= 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await tryListen(lowest + Math.floor(Math.random() * (below - lowest)))
      if (port !== undefined) return port
    }
  }
  // No room below the ephemeral range (or not Linux): any free port the kernel gives.
  const port = await tryListen(0)
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1')
  return port
}

/**
 * A free port below the range freePort picks from (2000–9999): for a regtest template's network, whose nodes
 * remember each other at the ports they had. Every network copied from it keeps trying those ports in the
 * background; with them outside the range tests pick from, no other network of the run ever listens there (a copy
 * that reached another copy's router, the same node key, would have its channel reestablished with a stranger).
 */
export async function portApartFromTests(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = await tryListen(2_000 + Math.floor(Math.random() * (lowest - 2_000)))
    if (port !== undefined) return port
  }
  throw new Error('no free TCP port on 127.0.0.1 between 2000 and 9999')
}
